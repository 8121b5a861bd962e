import { searchColumn, normalizeSearch } from "@/lib/formats/search-normalize";

/** The stored search columns of each searchable row (see prisma/schema.prisma). */
export const stationNorm = (s: { name: string; code: string; remarks: string }) => searchColumn(s.name, s.code, s.remarks);
export const organizationNorm = (o: { name: string; acronym: string }) => searchColumn(o.name, o.acronym);
export const personNorm = (p: { firstName: string; lastName: string }) => searchColumn(p.firstName, p.lastName);
export const gareaNorm = (g: { name: string; code: string }) => searchColumn(g.name, g.code);
export const descrNorm = (descr: string) => normalizeSearch(descr);
export const remarksNorm = (remarks: string) => normalizeSearch(remarks);
