// A term and its one-line explanation, shown on request: a small button that
// a keyboard reaches (Tab, then Enter), read out by screen readers, and not a
// hover-only tooltip a keyboard user never sees.

import type { ReactNode } from 'react';
import { useId, useState } from 'react';

export function Explained({ term, children }: { readonly term: string; readonly children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <>
      <button type="button" className="explain" aria-expanded={open} aria-controls={id} aria-label={`Explain: ${term}`} onClick={() => setOpen(!open)}>
        ?
      </button>
      {open && (
        <span id={id} className="explanation" role="note">
          {children}
        </span>
      )}
    </>
  );
}

/** A label followed by its explanation button. */
export function Term({ label, text }: { readonly label: string; readonly text: string }) {
  return (
    <>
      {label}
      <Explained term={label}>{text}</Explained>
    </>
  );
}
