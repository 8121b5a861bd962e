// Shared by npm run bench (section page) and scripts/lab/measure.ts.
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
