import type { KeyMode } from "@octavo/db";
import type { ComponentChildren } from "preact";
import { inMode } from "../mode.js";
import { BASE } from "../session.js";

const NAV = [
  ["Overview", ""],
  ["API keys", "/keys"],
  ["Webhooks", "/webhooks"],
  ["Jobs", "/jobs"],
  ["Plan", "/plan"],
] as const;
/** The sections whose data follows the live/test switch. */
const FOLLOW_MODE: readonly string[] = ["", "/jobs"];

export interface PageProps {
  title: string;
  /** The signed-in customer's email; absent on the sign-in and sign-up pages. */
  email?: string | undefined;
  /** The path of the current section, e.g. "/keys", to mark it in the navigation. */
  section?: string;
  csrf: string;
  /** On a page whose data follows the switch: the mode shown, and the page's path without it. */
  mode?: { shown: KeyMode; path: string };
  children: ComponentChildren;
}

export function Layout({ title, email, section, csrf, mode, children }: PageProps) {
  const shown = mode?.shown ?? "live";
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · octavo`}</title>
        <link rel="stylesheet" href={`${BASE}/static/dashboard.css`} />
        <script src={`${BASE}/static/dashboard.js`} defer />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <span class="brand">octavo</span>
          {email && (
            <nav aria-label="Dashboard">
              <ul>
                {NAV.map(([label, path]) => (
                  <li key={path}>
                    <a
                      href={FOLLOW_MODE.includes(path) ? inMode(`${BASE}${path}`, shown) : `${BASE}${path}`}
                      aria-current={section === path ? "page" : undefined}
                    >
                      {label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          {email && (
            <form method="post" action={`${BASE}/signout`} class="signout">
              <input type="hidden" name="_csrf" value={csrf} />
              <span class="who">{email}</span> <button type="submit">Sign out</button>
            </form>
          )}
        </header>
        <main id="main">
          {mode && <ModeSwitch shown={mode.shown} path={mode.path} />}
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  );
}

/** A hidden CSRF field: every form carries one. */
export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

/** A labelled input with its error text next to it, tied together for screen readers. */
export function Field(props: {
  name: string;
  label: string;
  type?: "text" | "email" | "password";
  value?: string;
  error?: string | undefined;
  hint?: string;
  autocomplete?: string;
  required?: boolean;
}) {
  const id = `field-${props.name}`;
  const described = [props.hint ? `${id}-hint` : "", props.error ? `${id}-error` : ""]
    .filter(Boolean)
    .join(" ");
  // preact types each input type's attributes apart, hence one element per type below.
  const attributes = {
    id,
    name: props.name,
    value: props.value,
    autocomplete: props.autocomplete,
    required: props.required,
    "aria-invalid": props.error ? ("true" as const) : undefined,
    "aria-describedby": described || undefined,
  };
  return (
    <div class={props.error ? "field invalid" : "field"}>
      <label for={id}>{props.label}</label>
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.type === "password" ? (
        <input type="password" {...attributes} />
      ) : props.type === "email" ? (
        <input type="email" {...attributes} />
      ) : (
        <input type="text" {...attributes} />
      )}
      {props.error && (
        <p class="error" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** A one-line message at the top of a page (after an action), announced to screen readers. */
export function Notice({ kind, children }: { kind: "ok" | "error"; children: ComponentChildren }) {
  return (
    <p class={`notice ${kind}`} role={kind === "error" ? "alert" : "status"}>
      {children}
    </p>
  );
}

/** Live or test data, as two links; in test mode a banner says what test data is. */
function ModeSwitch({ shown, path }: { shown: KeyMode; path: string }) {
  return (
    <>
      <nav aria-label="Live or test data" class="mode-switch">
        <a href={`${BASE}${path}`} aria-current={shown === "live" ? "page" : undefined}>
          Live data
        </a>
        <a href={inMode(`${BASE}${path}`, "test")} aria-current={shown === "test" ? "page" : undefined}>
          Test data
        </a>
      </nav>
      {shown === "test" && (
        <p class="test-banner" role="status">
          Test data: the jobs of your test keys (<code>svc_test_…</code>). They cost nothing, every output is
          stamped “octavo test mode”, and outputs are kept one hour.
        </p>
      )}
    </>
  );
}
