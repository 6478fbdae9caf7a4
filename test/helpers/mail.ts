import type { TestServer } from "./server.js";

interface LoggedMail {
  to: string;
  subject: string;
  text: string;
}

/** The mails the server's default mailer printed to its log (at warn, so at every LOG_LEVEL but error) for `to`, oldest first. */
export function mailsTo(server: TestServer, to: string): LoggedMail[] {
  const mails: LoggedMail[] = [];
  for (const line of server.output().split("\n")) {
    if (!line.startsWith("{") || !line.includes('"mail (printed')) continue;
    const entry = JSON.parse(line) as LoggedMail;
    if (entry.to === to) mails.push(entry);
  }
  return mails;
}

/** The one-time token in the last mail to `to`, waiting for it a little: the mail goes out after the answer. */
export async function tokenMailedTo(server: TestServer, to: string, subject: string): Promise<string> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const mail = mailsTo(server, to)
      .filter((m) => m.subject === subject)
      .at(-1);
    const token = mail && /"token": "([\w-]+)"/.exec(mail.text)?.[1];
    if (token) return token;
    if (Date.now() > deadline) throw new Error(`no mail "${subject}" to ${to} in the server's log`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
