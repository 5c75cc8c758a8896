// How to send events to a project: the script tag with its public key, and a curl line that sends one
// pageview as a browser would send it: with an Origin (the project's allowed origins may have to list
// it) and a browser's user agent, since curl's own is counted as a bot and left out of the numbers.
export function snippetLines(publicKey: string, origin = location.origin) {
  const script = `<script defer src="${origin}/v2/sdk/loupe.js" data-key="${publicKey}"></script>`;
  const body = JSON.stringify({ name: 'pageview', page: { url: 'https://example.com/hello', title: 'Hello' } });
  const curl =
    `curl -X POST ${origin}/v2/ingest -A 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0' ` +
    `-H 'X-Project-Key: ${publicKey}' ` +
    `-H 'Origin: https://example.com' -H 'Content-Type: application/json' -d '${body}'`;
  return { script, curl };
}

export function Snippet({ publicKey }: { publicKey: string }) {
  const { script, curl } = snippetLines(publicKey);
  return (
    <div class="snippet">
      <p>Add this to every page of your site, before &lt;/head&gt;:</p>
      <Code text={script} label="Script tag" />
      <p>Or send a test pageview from a terminal:</p>
      <Code text={curl} label="curl command" />
    </div>
  );
}

function Code({ text, label }: { text: string; label: string }) {
  return (
    <div class="code-block">
      <pre tabIndex={0} aria-label={label}>
        <code>{text}</code>
      </pre>
      <button class="copy" onClick={() => void navigator.clipboard?.writeText(text)} aria-label={`Copy the ${label}`}>
        Copy
      </button>
    </div>
  );
}
