// Capture: a packet capture of the copy that was slow, read by the services
// (`pipefill analyze` in a terminal), shown in the same sentences: each copy's
// time beside the model's and the layer that held it first, then what the
// client did, TCP, the server's times, and what the capture could not show.

import { useState } from 'react';
import type { FormEvent } from 'react';
import type { CaptureAnalysis } from '../../../../src/contract/capture.js';
import { captureLines } from '../../../../src/presentation/capture-text.js';
import type { useCapture } from '../state/use-capture.js';
import { captureInput, captureName } from '../state/use-capture.js';

function Analysis({ analysis, name }: { readonly analysis: CaptureAnalysis; readonly name: string }) {
  const lines = captureLines(analysis, name);
  return (
    <section aria-label="The capture's analysis">
      <p>{lines.heading}</p>
      {lines.connections.map((connection, index) => (
        <article key={index} className="card">
          <h3>{connection.summary}</h3>
          {connection.copies.length === 0 ? (
            <p>No file read or written in it.</p>
          ) : (
            <ul>
              {connection.copies.map((copy, copyIndex) => (
                <li key={copyIndex}>
                  <strong data-testid="capture-copy-verdict">{copy.verdict}</strong>
                  <br />
                  {copy.client}
                </li>
              ))}
            </ul>
          )}
          <p>{connection.tcp}</p>
          {connection.serverTimes && <p>{connection.serverTimes}</p>}
        </article>
      ))}
      {lines.notes.length > 0 && (
        <>
          <h3>What the capture could not show</h3>
          <ul>
            {lines.notes.map((note, index) => (
              <li key={index}>{note}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** `capture`: the app's analysis call (use-capture.ts), kept by the app so a view left and come back to still shows it. */
export function CaptureView({ capture }: { readonly capture: ReturnType<typeof useCapture> }) {
  const { phase, result: analysis, error, cancel } = capture;
  const [path, setPath] = useState('');
  const [bandwidth, setBandwidth] = useState('');
  const [shown, setShown] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShown(path.trim());
    void capture.start(captureInput(path, bandwidth));
  };
  return (
    <div>
      <h2>Capture</h2>
      <p>
        A capture of the copy that was slow (pcap or pcapng from tcpdump, Wireshark or pktmon), set against the model of every layer with the path, client and
        server as it shows them. The file is read where Pipefill's services run and is not changed.
      </p>
      <form onSubmit={submit} className="card">
        <label htmlFor="capture-path">Capture file on this machine</label>
        <input
          id="capture-path"
          type="text"
          value={path}
          onChange={(event) => setPath(event.target.value)}
          placeholder={'/home/me/slow-copy.pcapng or C:\\Users\\me\\slow-copy.pcapng'}
          required
        />
        <label htmlFor="capture-bandwidth">Line rate (optional: a capture cannot show it)</label>
        <input id="capture-bandwidth" type="text" value={bandwidth} onChange={(event) => setBandwidth(event.target.value)} placeholder="100mbit" />
        <p>
          <button type="submit" className="primary" disabled={phase === 'running' || path.trim() === ''}>
            Analyse
          </button>
        </p>
        {phase === 'running' && (
          <>
            {' '}
            <span role="status">Reading the capture…</span>{' '}
            <button type="button" onClick={cancel}>
              Cancel
            </button>
          </>
        )}
      </form>
      {error && phase !== 'running' && (
        <p className="error" role="alert">
          {error.message} {error.hint}
        </p>
      )}
      {analysis && phase === 'done' && <Analysis analysis={analysis} name={captureName(shown)} />}
    </div>
  );
}
