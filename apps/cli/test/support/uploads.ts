import { request } from "node:http";

/**
 * Streams `totalBytes` of a multipart upload and stops as soon as the server answers. Returns the
 * answer and how much of the body had been sent by then.
 */
export function uploadUntilAnswered(
  url: string,
  apiKey: string,
  totalBytes: number,
): Promise<{ status: number; body: string; sent: number }> {
  const boundary = "octavo-test-boundary";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const chunk = Buffer.alloc(64 * 1024, 0x25);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${apiKey}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
      },
    });
    req.on("response", (res) => {
      answered = true;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (part: string) => {
        body += part;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, sent }));
    });
    req.on("error", (error) => (answered ? undefined : reject(error)));
    const pump = () => {
      while (!answered && sent < totalBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once("drain", pump);
          return;
        }
      }
      if (!answered) req.end(`\r\n--${boundary}--\r\n`);
    };
    req.write(head);
    pump();
  });
}
