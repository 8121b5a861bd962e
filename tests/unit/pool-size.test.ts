import { describe, expect, it } from "vitest";
import { poolSize } from "@/lib/db";

describe("the PostgreSQL pool size of a process (ENHYDRIS_PG_POOL_SIZE and its default)", () => {
  it("is the setting when it is a positive integer", () => {
    expect(poolSize({ ENHYDRIS_PG_POOL_SIZE: "7" }, 2)).toBe(7);
    expect(poolSize({ ENHYDRIS_PG_POOL_SIZE: "7", ENHYDRIS_CLUSTER_ROLE: "follower", ENHYDRIS_WORKERS: "8" }, 2)).toBe(7);
  });

  it("is 20 for a process of its own (one worker, a script, npm run worker), whatever the cores", () => {
    expect(poolSize({}, 2)).toBe(20);
    expect(poolSize({}, 32)).toBe(20);
    expect(poolSize({ ENHYDRIS_PG_POOL_SIZE: "" }, 4)).toBe(20);
    expect(poolSize({ ENHYDRIS_PG_POOL_SIZE: "many" }, 4)).toBe(20);
  });

  it("shares 40 connections among a server's workers, 20 at most and 5 at least each", () => {
    const worker = (workers: string | undefined, cores: number) => poolSize({ ENHYDRIS_CLUSTER_ROLE: "follower", ENHYDRIS_WORKERS: workers }, cores);
    expect(worker(undefined, 2)).toBe(20);
    expect(worker("2", 16)).toBe(20);
    expect(worker(undefined, 4)).toBe(10);
    expect(worker("3", 2)).toBe(13);
    expect(worker(undefined, 8)).toBe(5);
    expect(worker("32", 2)).toBe(5);
  });
});
