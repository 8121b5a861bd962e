import { expect, test, type Page } from "@playwright/test";
import { alertBox, createUser, hydrated, logIn, noHorizontalScroll, offline, open, shot, unique } from "./helpers";

/**
 * The management pages in Greek (public.md §3): a superuser who chose Greek walks
 * the management home, a station's page (its forms, the pickers, a refused form's summary), a
 * file's delete confirmation, the lookups and the users pages, at a desktop's and a phone's
 * width; none of them keeps an English label.
 */
// Many pages in one walk, on a shared machine.
test.describe.configure({ timeout: 300_000 });

test.beforeEach(async ({ context }) => {
  await offline(context);
});

/** Words of the English pages that a Greek page must not show. */
async function noEnglish(page: Page, words: string[]) {
  const text = await page.locator("main").innerText();
  expect(words.filter((w) => text.includes(w))).toEqual([]);
}

for (const size of [{ name: "desktop", width: 1280, height: 800 }, { name: "phone", width: 390, height: 844 }]) {
  test.describe(`the management pages in Greek at ${size.name} width`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test("home, station, delete, lookups and users", async ({ page, context, baseURL }) => {
      const username = unique("elmanage");
      createUser(username, "greek-manage-1", { superuser: true });
      await logIn(page, username, "greek-manage-1");
      await expect(page.locator("header")).toContainText(username);
      // Greek from here on, as the footer's switcher would choose it.
      await context.addCookies([{ name: "enhydris_language", value: "el", url: baseURL! }]);

      await open(page, "/manage/");
      await expect(page.locator("html")).toHaveAttribute("lang", "el");
      await expect(page).toHaveTitle(/^Διαχείριση/);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Διαχείριση");
      await expect(page.getByRole("link", { name: "Νέος σταθμός" })).toBeVisible();
      await expect(page.getByRole("heading", { name: "Σταθμοί", exact: true })).toBeVisible();
      await expect(page.locator("main").getByRole("button", { name: "Αναζήτηση" })).toBeVisible();
      // Other tests add stations to the demo's six: the count, whatever it is, in Greek.
      await expect(page.getByText(/^\d+ σταθμοί$/)).toBeVisible();
      await noEnglish(page, ["Stations", "Search", "Lookups", "Latest changes", "public page", "Owner"]);
      await noHorizontalScroll(page);
      await shot(page, "languages-manage-home-el");

      // A station's page: its sections, forms and pickers.
      await page.getByRole("link", { name: "Komboti" }).click();
      await expect(page).toHaveURL(/\/manage\/stations\/\d+\/$/);
      await hydrated(page);
      const stationUrl = page.url();
      await expect(page.getByRole("heading", { name: "Στοιχεία" })).toBeVisible();
      await expect(page.getByRole("heading", { name: "Συντηρητές και αναγνώστες δεδομένων" })).toBeVisible();
      await expect(page.getByRole("button", { name: "Αποθήκευση σταθμού" })).toBeVisible();
      await expect(page.getByRole("combobox", { name: "Ιδιοκτήτης" })).toBeVisible();
      await expect(page.getByText("Γεωγραφικό μήκος ή τετμημένη (x)")).toBeVisible();
      await expect(page.getByLabel("Ζώνη ώρας εμφάνισης")).toBeVisible();
      // The station types by their Greek descriptions (demo data).
      await expect(page.getByRole("checkbox", { name: "Μετεωρολογικός" })).toBeVisible();
      await noEnglish(page, ["Details", "Maintainers", "Save station", "Location", "Display time zone", "Time series groups", "Add a file", "Activity"]);
      await noHorizontalScroll(page);
      await shot(page, "languages-manage-station-el");

      // An event without its type: the form's own summary in Greek.
      await page.locator("summary", { hasText: "Προσθήκη συμβάντος" }).click();
      const eventForm = page.getByRole("form", { name: "Νέο συμβάν" });
      await eventForm.getByRole("button", { name: "Προσθήκη συμβάντος" }).click();
      await expect(alertBox(page).filter({ hasText: "Διορθώστε" })).toContainText(/Διορθώστε (το σφάλμα|τα σφάλματα) παρακάτω· δεν αποθηκεύτηκε τίποτα\./);

      // A file, then its delete confirmation, which says what goes.
      await open(page, stationUrl);
      await page.locator("summary", { hasText: "Προσθήκη αρχείου" }).click();
      const fileForm = page.getByRole("form", { name: "Νέο αρχείο" });
      await fileForm.getByLabel("Αρχείο").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("notes\n") });
      await fileForm.getByLabel("Περιγραφή").fill("Σημειώσεις");
      await fileForm.getByRole("button", { name: "Προσθήκη αρχείου" }).click();
      await expect(page.getByRole("status")).toHaveText("Το αρχείο προστέθηκε.");
      await page.locator("#files li", { hasText: "Σημειώσεις" }).getByRole("link", { name: "Διαγραφή" }).click();
      await expect(page).toHaveURL(/\/files\/\d+\/delete\/$/);
      await expect(page.locator("#confirm-heading")).toHaveText("Να διαγραφεί το αρχείο «Σημειώσεις»;");
      await expect(page.getByRole("button", { name: "Να διαγραφεί το αρχείο «Σημειώσεις»" })).toBeVisible();
      await expect(page.getByRole("link", { name: "Ακύρωση" })).toBeVisible();
      await shot(page, "languages-manage-delete-el");
      await page.getByRole("button", { name: "Να διαγραφεί το αρχείο «Σημειώσεις»" }).click();
      await expect(page.getByRole("status")).toHaveText("Το αρχείο διαγράφηκε.");

      // The station's delete says what it takes, in Greek words and numbers.
      await open(page, `${stationUrl}delete/`);
      await expect(page.locator("#confirm-heading")).toHaveText("Να διαγραφεί ο σταθμός «Komboti»;");
      await expect(page.locator(".confirm-delete strong")).toContainText(/ομάδες χρονοσειρών|ομάδα χρονοσειρών/);

      // Lookups.
      await open(page, "/manage/lookups/");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Κατάλογοι τιμών");
      await page.getByRole("link", { name: "Τύποι σταθμών" }).click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Τύποι σταθμών");
      await expect(page.getByRole("heading", { name: "Προσθήκη τύπου σταθμού" })).toBeVisible();
      await expect(page.getByLabel("Περιγραφή στα ελληνικά")).toBeVisible();
      await noEnglish(page, ["Station types", "Description", "Add station type"]);
      await shot(page, "languages-manage-lookups-el");

      // Users.
      await open(page, "/manage/users/");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Χρήστες");
      await expect(page.getByRole("heading", { name: "Προσθήκη χρήστη" })).toBeVisible();
      await expect(page.getByRole("button", { name: "Προσθήκη χρήστη" })).toBeVisible();
      await expect(page.getByLabel("Μπορεί να προσθέτει σταθμούς")).toBeVisible();
      await noEnglish(page, ["Username", "Rights", "Add user", "Superuser"]);
      await noHorizontalScroll(page);
      await shot(page, "languages-manage-users-el");
    });
  });
}
