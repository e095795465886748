// A page opened from a file (file://) runs none of the site's modules: browsers load ES modules
// only from a served site. The page then reads as without JavaScript, and this classic script,
// the one that still runs, says so where the modules would have spoken: the search status. (The
// pages written many times, compact.html, load no classic script: a version page's banner says in
// its own words that a served site tells if the text changed.)
"use strict";

(() => {
  if (window.location.protocol !== "file:") return;
  const served = "Opened from a file: the browser runs this site's scripts only when the site is served " +
    "(pincite serve, or any static host).";
  const status = document.getElementById("search-status");
  if (status) status.textContent = served + " Search needs it; the document list works without it.";
})();
