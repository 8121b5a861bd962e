// Shared by npm run bench (section page) and the page lab (scripts/lab/measure.ts, ab.ts).
/**
 * Marks, in the page's own clock, when the server's SVG chart entered the document and when the
 * second animation frame after that began: the first frame after the insertion is the first that
 * can paint it, and the second begins only once that one has been produced.
 */
export const CHART_MARKS = `(() => {
  const marks = (window.__chartMarks = {});
  const seen = () => document.querySelector('[data-testid="static-chart"] path[stroke="#0b4f85"]');
  new MutationObserver((records, observer) => {
    if (!seen()) return;
    observer.disconnect();
    marks.inserted = performance.now();
    requestAnimationFrame(() => requestAnimationFrame(() => { marks.framed = performance.now(); }));
  }).observe(document, { childList: true, subtree: true });
})();`;

/** Debian's Chromium as the bench and the lab run it: headless, software raster, no background work. */
export const CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--no-first-run"];
