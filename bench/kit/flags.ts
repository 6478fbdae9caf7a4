/**
 * A program's settings from its flags (`--name value`, `--name=value`, `--switch`), each falling back to its
 * environment variable, if it has one, and then to a default. Values are checked here, so every benchmark, the
 * fuzzer and the evaluation refuse a bad one the same way; an unknown flag is refused too. `--help` lists the flags.
 */
import { parseArgs } from "node:util";

export interface FlagSpec {
  /** What the flag sets, and its default: the one description of it, which `--help` prints. */
  help?: string;
  /** The environment variable read when the flag is not given. */
  env?: string;
  /** A switch: present or not (its variable: "1" or not). */
  boolean?: true;
  /** May be given several times (read with `all`). */
  multiple?: true;
}

export interface NumberRule {
  min?: number;
  max?: number;
  integer?: boolean;
}

/** The rules most settings follow: a number above 0, or a whole number from 1. */
export const POSITIVE: NumberRule = { min: Number.MIN_VALUE };
export const WHOLE: NumberRule = { min: 1, integer: true };

export interface Flags<N extends string> {
  /** The flag's text, else its variable's, else `fallback`. */
  text(name: N, fallback?: string): string | undefined;
  number(name: N, fallback: number, rule?: NumberRule): number;
  /** A comma-separated list of numbers. */
  numbers(name: N, fallback: string, rule?: NumberRule): number[];
  /** A switch given (or its variable set to "1"). */
  on(name: N): boolean;
  /** Every value of a flag given several times. */
  all(name: N): string[];
  /** Whether the flag itself was given (not its variable). */
  given(name: N): boolean;
}

export function readFlags<N extends string>(spec: Record<N, FlagSpec>, argv = process.argv.slice(2)): Flags<N> {
  const entries = Object.entries(spec) as [N, FlagSpec][];
  const label = (name: N) => `--${name}${spec[name].env ? ` (${spec[name].env})` : ""}`;
  // The evaluation describes its flags in its own usage text, printed on a bad one.
  if (argv.includes("--help") && entries.some(([, f]) => f.help)) {
    console.log(entries.map(([name, f]) => `  ${label(name).padEnd(36)} ${f.help ?? ""}`).join("\n"));
    process.exit(0);
  }
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(entries.map(([name, f]) => [name, { type: f.boolean ? "boolean" : "string", multiple: f.multiple ?? false }])),
    strict: true,
  });
  const given = (name: N) => values[name] !== undefined;
  const env = (name: N) => (spec[name].env ? process.env[spec[name].env] : undefined);
  const text = (name: N, fallback?: string) => (typeof values[name] === "string" ? (values[name] as string) : (env(name) ?? fallback));
  return {
    text,
    number: (name, fallback, rule = {}) => {
      const raw = text(name);
      return raw === undefined ? fallback : check(label(name), raw, rule);
    },
    numbers: (name, fallback, rule = {}) =>
      text(name, fallback)!
        .split(",")
        .map((raw) => check(label(name), raw, rule)),
    on: (name) => values[name] === true || env(name) === "1",
    all: (name) => (values[name] as string[] | undefined) ?? [],
    given,
  };
}

function check(label: string, raw: string, { min = -Infinity, max = Infinity, integer = false }: NumberRule): number {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    const range = `${min === -Infinity ? "" : ` ≥ ${min}`}${max === Infinity ? "" : ` ≤ ${max}`}`;
    throw new Error(`${label}: not a ${integer ? "whole " : ""}number${range}: ${raw}`);
  }
  return n;
}

/** Settings read from the environment alone (no flag), checked as flags are. */
export const fromEnv = {
  text: (name: string, fallback?: string): string | undefined => process.env[name] ?? fallback,
  number(name: string, fallback: number, rule: NumberRule = {}): number {
    const raw = process.env[name];
    return raw === undefined ? fallback : check(name, raw, rule);
  },
  numbers: (name: string, fallback: string, rule: NumberRule = {}): number[] =>
    (process.env[name] ?? fallback).split(",").map((raw) => check(name, raw, rule)),
};
