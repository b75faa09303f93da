// A view that throws while rendering (a report from a newer Pipefill, a
// field it cannot draw) shows what went wrong and a way on, instead of
// blanking the whole window. The other views and the navigation keep working.

import { Component } from 'react';
import type { ErrorInfo, ReactNode } from 'react';

interface Props {
  readonly name: string;
  readonly onLeave: () => void;
  readonly children: ReactNode;
}

interface State {
  readonly error?: Error;
}

export class ViewBoundary extends Component<Props, State> {
  override state: State = {};

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    // The console keeps the detail for a bug report; the page shows the message.
    console.warn(`Pipefill: the ${this.props.name} view failed`, error, info.componentStack);
  }

  override render(): ReactNode {
    if (!this.state.error) return this.props.children;
    return (
      <section aria-labelledby="view-failed">
        <h2 id="view-failed">This view could not be shown</h2>
        <p className="error" role="alert">
          {this.state.error.message}
        </p>
        <p className="hint">The report may come from a newer Pipefill or have been edited. Its JSON is unchanged; the other views still work.</p>
        <button type="button" onClick={this.props.onLeave}>
          Back to Start
        </button>
      </section>
    );
  }
}
