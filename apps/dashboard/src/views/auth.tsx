import { BASE } from "../session.js";
import { Csrf, Field, Layout, Notice } from "./layout.js";

export function SignUpPage(props: {
  csrf: string;
  email?: string;
  errors?: { email?: string | undefined; password?: string | undefined };
  minLength: number;
}) {
  return (
    <Layout title="Create your account" csrf={props.csrf}>
      <p>
        New accounts start on the Free plan: 100 credits a month, no card. Already have an account?{" "}
        <a href={`${BASE}/signin`}>Sign in</a>.
      </p>
      <form method="post" action={`${BASE}/signup`} class="stack" novalidate>
        <Csrf token={props.csrf} />
        <Field
          name="email"
          label="Email"
          type="email"
          autocomplete="email"
          value={props.email ?? ""}
          error={props.errors?.email}
          required
        />
        <Field
          name="password"
          label="Password"
          type="password"
          autocomplete="new-password"
          hint={`At least ${props.minLength} characters. A passphrase of a few words is easiest to remember.`}
          error={props.errors?.password}
          required
        />
        <button type="submit">Create account</button>
      </form>
    </Layout>
  );
}

export function SignInPage(props: { csrf: string; email?: string; error?: string; status?: string }) {
  return (
    <Layout title="Sign in" csrf={props.csrf}>
      {props.status && <Notice kind="ok">{props.status}</Notice>}
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <form method="post" action={`${BASE}/signin`} class="stack" novalidate>
        <Csrf token={props.csrf} />
        <Field
          name="email"
          label="Email"
          type="email"
          autocomplete="username"
          value={props.email ?? ""}
          required
        />
        <Field name="password" label="Password" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
      <p>
        No account yet? <a href={`${BASE}/signup`}>Create one</a>.
      </p>
    </Layout>
  );
}
