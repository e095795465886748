// A page opened from a file (file://) runs none of the site's modules: browsers load ES modules
// only from a served site. The page then reads as without JavaScript (the text, its line anchors,
// the line the address names highlighted by CSS), and this classic script, the one that still
// runs, says so where the modules would have spoken: the drift banner and the search status.
"use strict";

(() => {
  if (window.location.protocol !== "file:") return;
  const served = "Opened from a file: the browser runs this site's scripts only when the site is served " +
    "(pincite serve, or any static host).";
  const banner = document.querySelector("#banner .banner-body");
  if (banner) banner.textContent = served + " So this page cannot say whether the cited text changed in the latest build.";
  const status = document.getElementById("search-status");
  if (status) status.textContent = served + " Search needs it; the document list works without it.";
})();
