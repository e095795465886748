// ESLint's flat configuration for the site's scripts and their unit tests, run by
// tests/test_site_scripts.py from the repository's root (file patterns are relative to it):
//   npx eslint@9.39.5 -c tests/js/eslint.config.js
// Self-contained (no imports), so it runs from wherever ESLint is installed. The rules are ESLint's
// recommended set written out (the test checks that none is missing) and a few of our own.

const RECOMMENDED = [
  "constructor-super", "for-direction", "getter-return", "no-async-promise-executor", "no-case-declarations",
  "no-class-assign", "no-compare-neg-zero", "no-cond-assign", "no-const-assign", "no-constant-binary-expression",
  "no-constant-condition", "no-control-regex", "no-debugger", "no-delete-var", "no-dupe-args",
  "no-dupe-class-members", "no-dupe-else-if", "no-dupe-keys", "no-duplicate-case", "no-empty",
  "no-empty-character-class", "no-empty-pattern", "no-empty-static-block", "no-ex-assign", "no-extra-boolean-cast",
  "no-fallthrough", "no-func-assign", "no-global-assign", "no-import-assign", "no-invalid-regexp",
  "no-irregular-whitespace", "no-loss-of-precision", "no-misleading-character-class", "no-new-native-nonconstructor",
  "no-nonoctal-decimal-escape", "no-obj-calls", "no-octal", "no-prototype-builtins", "no-redeclare",
  "no-regex-spaces", "no-self-assign", "no-setter-return", "no-shadow-restricted-names", "no-sparse-arrays",
  "no-this-before-super", "no-undef", "no-unexpected-multiline", "no-unreachable", "no-unsafe-finally",
  "no-unsafe-negation", "no-unsafe-optional-chaining", "no-unused-labels", "no-unused-private-class-members",
  "no-unused-vars", "no-useless-backreference", "no-useless-catch", "no-useless-escape", "no-with",
  "require-yield", "use-isnan", "valid-typeof",
];

const OURS = {
  eqeqeq: "error",
  "no-var": "error",
  "prefer-const": "error",
  "no-shadow": "error",
  // One concept a module: a module that passes 300 lines is asking to be split.
  "max-lines": ["error", { max: 300, skipComments: true, skipBlankLines: true }],
  // Modules speak through imports and exports, never through globals set on the page.
  "no-restricted-syntax": ["error", {
    selector: "AssignmentExpression > MemberExpression.left[object.name=/^(window|globalThis|self)$/]",
    message: "set no global: export it from the module instead",
  }],
};

const rules = Object.fromEntries([...RECOMMENDED.map((name) => [name, "error"]), ...Object.entries(OURS)]);

// What the browser gives the site's scripts (the CSP allows nothing from elsewhere).
const BROWSER = [
  "window", "document", "navigator", "location", "fetch", "URL", "URLSearchParams", "DOMParser", "TextEncoder",
  "Node", "NodeFilter", "ResizeObserver", "getComputedStyle", "performance", "console",
];
const NODE = ["process", "console", "URL", "TextEncoder", "globalThis", "structuredClone"];

const readonly = (names) => Object.fromEntries(names.map((name) => [name, "readonly"]));

export default [
  {
    files: ["site_templates/static/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: readonly(BROWSER) },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules,
  },
  {
    // The one classic script: it runs where modules do not (a page opened from a file).
    files: ["site_templates/static/file-view.js"],
    languageOptions: { sourceType: "script" },
  },
  {
    files: ["tests/js/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: readonly(NODE) },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: { ...rules, "no-restricted-syntax": "off" },
  },
];
