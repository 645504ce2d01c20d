/** `?`: every key of the window, from the one list in renderer/shortcuts.ts. */
import { Fragment, useEffect } from 'react';
import { useOverlays } from '../overlays.ts';
import { GLOBAL_KEYS, KEY_GROUPS, keyLabel, matches, type KeyBinding } from '../shortcuts.ts';
import { Modal } from './Modal.tsx';
import './keyboardOverlays.css';

function Keys({ binding }: { binding: KeyBinding }) {
  return (
    <span className="shortcut-keys">
      {binding.keys.map((key, i) => (
        <Fragment key={key}>
          {i > 0 && <span className="faint"> or </span>}
          {keyLabel(key).map((cap, j) => (
            <Fragment key={cap}>
              {j > 0 && <span className="faint">+</span>}
              <kbd>{cap}</kbd>
            </Fragment>
          ))}
        </Fragment>
      ))}
    </span>
  );
}

export function ShortcutHelp() {
  const open = useOverlays((s) => s.open === 'help');
  const close = useOverlays((s) => s.close);

  // The view behind stays still: j, n, arrows… do not step its turns while the list is read.
  useEffect(() => {
    if (!open) return;
    const hold = (e: KeyboardEvent) => {
      // Tab among them: focus still moves inside the dialog.
      const global = Object.values(GLOBAL_KEYS).some((b) => matches(b, e));
      if (!global) e.preventDefault();
    };
    window.addEventListener('keydown', hold, { capture: true });
    return () => window.removeEventListener('keydown', hold, { capture: true });
  }, [open]);

  if (!open) return null;
  return (
    <Modal title="Keyboard shortcuts" onClose={close} testId="shortcut-help" className="shortcut-help">
      <div className="shortcut-groups">
        {KEY_GROUPS.map((group) => (
          <section key={group.title} className="shortcut-group">
            <h3>{group.title}</h3>
            <dl>
              {group.bindings.map((b) => (
                <div key={b.what} className="shortcut-row" data-testid="shortcut-row">
                  <dt>
                    <Keys binding={b} />
                  </dt>
                  <dd>{b.what}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
    </Modal>
  );
}
