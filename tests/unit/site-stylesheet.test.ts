import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { minifyCss, siteStylesheet } from "@/lib/site/stylesheet";

describe("the inline site stylesheet", () => {
  it("drops comments and layout whitespace, keeping selectors, values and strings", () => {
    const css = `/* a comment */
:root {
  --brand: #0b3954;
}

.breadcrumbs li + li::before { content: "›"; margin: 0 .4rem 0 .15rem; }
@media (max-width: 800px) {
  .grid { grid-template-areas: "title account" "search search"; }
}
a:hover, a:focus { color: var(--brand); }
`;
    expect(minifyCss(css)).toBe(
      ':root{--brand:#0b3954}.breadcrumbs li + li::before{content:"›";margin:0 .4rem 0 .15rem}'
        + '@media (max-width:800px){.grid{grid-template-areas:"title account" "search search"}}a:hover,a:focus{color:var(--brand)}',
    );
  });

  it("is public/site.css with every rule", () => {
    const file = readFileSync(join(process.cwd(), "public", "site.css"), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
    const inline = siteStylesheet();
    expect(inline).not.toContain("/*");
    expect(inline.split("{").length).toBe(file.split("{").length);
    expect(inline.split("}").length).toBe(file.split("}").length);
    expect(inline.length).toBeLessThan(file.length);
  });
});
