import { BUNDLE_PATH } from './protocol.ts';

/**
 * The device page's HTML: a status line, the device's id, a form for the pairing code
 * (shown only when the address does not carry it), a log, and the bundled code.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>memplan device</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; margin: 1.2em; max-width: 48em; }
  h1 { font-size: 1.2em; }
  #status { font-weight: 600; }
  #log { font: 12px/1.4 ui-monospace, monospace; padding-left: 1.2em; color: #333; }
  input, button { font: inherit; padding: 0.3em 0.6em; }
</style>
</head>
<body>
<h1>memplan device <span id="device"></span></h1>
<p id="status">starting...</p>
<form id="pair" hidden>
  <label>Pairing code (memplan agent printed it): <input id="code" autocomplete="off" autocapitalize="characters" spellcheck="false"></label>
  <button type="submit">Join</button>
</form>
<p>Keep this page open and in front while jobs run: browsers slow down pages in the background.</p>
<ol id="log"></ol>
<script type="module" src="${BUNDLE_PATH}"></script>
</body>
</html>
`;
