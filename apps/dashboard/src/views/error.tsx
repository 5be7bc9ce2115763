import { BASE } from "../session.js";
import { Layout } from "./layout.js";

export function ErrorPage(props: { csrf: string; title: string; message: string }) {
  return (
    <Layout title={props.title} csrf={props.csrf}>
      <p>{props.message}</p>
      <p>
        <a href={BASE}>Back to the dashboard</a>
      </p>
    </Layout>
  );
}
