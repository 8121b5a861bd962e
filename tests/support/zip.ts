import { inflateRawSync } from "node:zlib";
import { expect } from "vitest";

export interface ZipMember { name: string; method: number; data: Buffer; localOffset: number }

/** Reads a zip through its central directory (works with streamed zips that use data descriptors). */
export function unzip(buf: Buffer): ZipMember[] {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  }
  expect(eocd, "end of central directory").toBeGreaterThanOrEqual(0);
  const count = buf.readUInt16LE(eocd + 10);
  let offset = buf.readUInt32LE(eocd + 16);
  const members: ZipMember[] = [];
  for (let k = 0; k < count; k++) {
    expect(buf.readUInt32LE(offset)).toBe(0x02014b50);
    const method = buf.readUInt16LE(offset + 10);
    const compressedSize = buf.readUInt32LE(offset + 20);
    const nameLength = buf.readUInt16LE(offset + 28);
    const extraLength = buf.readUInt16LE(offset + 30);
    const commentLength = buf.readUInt16LE(offset + 32);
    const localOffset = buf.readUInt32LE(offset + 42);
    const name = buf.subarray(offset + 46, offset + 46 + nameLength).toString("utf8");
    expect(buf.readUInt32LE(localOffset)).toBe(0x04034b50);
    const start = localOffset + 30 + buf.readUInt16LE(localOffset + 26) + buf.readUInt16LE(localOffset + 28);
    const raw = buf.subarray(start, start + compressedSize);
    members.push({ name, method, data: method === 8 ? inflateRawSync(raw) : Buffer.from(raw), localOffset });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return members;
}
