// A run's plan, said before its first byte, with the button that starts it
// and the one that goes back to the form (issue 38). Start takes the focus,
// so Enter starts the run a person has just read about.

import { useId } from 'react';

export interface PlanConfirmationProps {
  readonly plan: string;
  readonly testId: string;
  readonly onStart: () => void;
  readonly onChange: () => void;
}

export function PlanConfirmation({ plan, testId, onStart, onChange }: PlanConfirmationProps) {
  const id = useId();
  return (
    <div className="confirm" role="group" aria-labelledby={id}>
      <p id={id} data-testid={testId}>
        {plan}
      </p>
      <div className="row">
        <button type="button" className="primary" autoFocus onClick={onStart}>
          Start the run
        </button>
        <button type="button" className="secondary" onClick={onChange}>
          Change something
        </button>
      </div>
    </div>
  );
}
