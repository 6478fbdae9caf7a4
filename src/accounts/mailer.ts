import { log } from "../wire/log.js";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Where account mails (password resets, invitations) go. Pluggable: an SMTP or provider implementation is given to
 * main.ts in place of the default. Sending must not block the answer: callers do not await delivery past a
 * failure they log.
 */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * The default: no mail leaves the machine; the mail is printed to the server log for the operator to pass on, at
 * warn so that it shows at every log level but error. The log then holds one-time tokens: keep it as private
 * as the database.
 */
export class LogMailer implements Mailer {
  send(mail: Mail): Promise<void> {
    log.warn("mail (printed, not sent: no mailer configured)", { to: mail.to, subject: mail.subject, text: mail.text });
    return Promise.resolve();
  }
}
