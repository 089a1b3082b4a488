import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { StatusText } from './feedback.tsx';

interface Snippet {
  id: string;
  label: string;
  code: string;
}

/** Ready-to-paste examples with the real key and this server's address in them. */
export function keySnippets(key: string, origin: string): Snippet[] {
  return [
    {
      id: 'curl',
      label: 'curl',
      code: `curl ${origin}/v1/speak \\
  -H "Authorization: Bearer ${key}" \\
  -H "Content-Type: application/json" \\
  -d '{"text": "Hello from Voxsmith.", "voice_id": "default", "format": "mp3"}' \\
  -o hello.mp3`,
    },
    {
      id: 'openai-python',
      label: 'OpenAI SDK (Python)',
      code: `from openai import OpenAI

client = OpenAI(base_url="${origin}/v1", api_key="${key}")
speech = client.audio.speech.create(model="tts-1", voice="alloy", input="Hello from Voxsmith.")
speech.write_to_file("hello.mp3")`,
    },
    {
      id: 'openai-js',
      label: 'OpenAI SDK (JavaScript)',
      code: `import OpenAI from 'openai';
import { writeFile } from 'node:fs/promises';

const openai = new OpenAI({ baseURL: '${origin}/v1', apiKey: '${key}' });
const speech = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello from Voxsmith.' });
await writeFile('hello.mp3', Buffer.from(await speech.arrayBuffer()));`,
    },
    {
      id: 'voxsmith',
      label: 'Voxsmith SDK',
      code: `// npm install ${origin}/sdk/voxsmith-client.tgz
import { VoxsmithClient } from '@voxsmith/client';
import { writeFile } from 'node:fs/promises';

const vox = new VoxsmithClient({ baseUrl: '${origin}', apiKey: '${key}' });
const { audio } = await vox.speak({ text: 'Hello from Voxsmith.', voice_id: 'default', format: 'mp3' });
await writeFile('hello.mp3', audio);`,
    },
  ];
}

/** Tabs of code examples (the ARIA tabs pattern: arrows move between tabs), each with its own copy button. */
export function Snippets({ snippets, label }: { snippets: Snippet[]; label: string }) {
  const base = useId();
  const [current, setCurrent] = useState(0);
  const [copied, setCopied] = useState('');
  const tabs = useRef<Array<HTMLButtonElement | null>>([]);
  const code = useRef<HTMLElement>(null);
  const shown = snippets[current];

  function select(i: number) {
    setCurrent(i);
    setCopied('');
    tabs.current[i]?.focus();
  }

  function onKeyDown(event: KeyboardEvent) {
    const n = snippets.length;
    const next = { ArrowRight: (current + 1) % n, ArrowLeft: (current - 1 + n) % n, Home: 0, End: n - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    select(next);
  }

  async function copy() {
    try {
      await navigator.clipboard.writeText(shown.code);
      setCopied(`${shown.label} example copied to the clipboard.`);
    } catch {
      // No clipboard permission: select the code so Ctrl+C copies it.
      const range = document.createRange();
      if (code.current) range.selectNodeContents(code.current);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  }

  return (
    <div className="snippets">
      <div role="tablist" aria-label={label} className="snippet-tabs" onKeyDown={onKeyDown}>
        {snippets.map((s, i) => (
          <button
            key={s.id}
            ref={(el) => {
              tabs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`${base}-tab-${s.id}`}
            aria-selected={i === current}
            aria-controls={`${base}-panel`}
            tabIndex={i === current ? 0 : -1}
            className="quiet"
            onClick={() => select(i)}
          >
            {s.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${base}-panel`} aria-labelledby={`${base}-tab-${shown.id}`} className="snippet">
        <pre className="example" tabIndex={0} aria-label={`${shown.label} example`}>
          <code ref={code} data-testid="snippet-code">
            {shown.code}
          </code>
        </pre>
        <button type="button" className="copy-snippet secondary" onClick={() => void copy()}>
          Copy {shown.label} example
        </button>
        <StatusText>{copied}</StatusText>
      </div>
    </div>
  );
}
