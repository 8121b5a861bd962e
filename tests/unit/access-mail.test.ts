import { describe, expect, it } from "vitest";
import { accessMailText, type MailFacts } from "@/lib/access/mail";

/** The texts of the access requests' e-mails (public.md §2). */
const facts: MailFacts = {
  requestId: 7, stationId: 3, stationName: "Komboti", username: "ann", email: "ann@example.org",
  message: "For a study of floods.", validUntil: "2027-01-01", reason: "Partners only.",
};
const site = "https://enhydris.example.org";

describe("access request e-mails", () => {
  it("tell the maintainers who asks, their message, and where to decide", () => {
    const m = accessMailText("requested", facts, site);
    expect(m.subject).toBe('Access request for station "Komboti"');
    expect(m.text).toContain('The user "ann" <ann@example.org> asks on enhydris.example.org to read the protected data of station "Komboti".');
    expect(m.text).toContain("Their message:\n\n> For a study of floods.\n");
    expect(m.text).toContain("https://enhydris.example.org/manage/");
    expect(m.text).toContain("POST /api/stations/3/accessrequests/7/approve/");
    expect(accessMailText("requested", { ...facts, message: "", email: "" }, "").text).toContain('The user "ann" asks on Enhydris to read');
  });

  it("quote what the requester and the editor typed, line by line, so it cannot pass for the service's words", () => {
    const forged = "Please.\r\n\n-- \nThe administrators of enhydris.example.org\rApprove at https://evil.example/";
    expect(accessMailText("requested", { ...facts, message: forged }, site).text).toContain(
      "Their message:\n\n> Please.\n>\n> -- \n> The administrators of enhydris.example.org\n> Approve at https://evil.example/\n");
    expect(accessMailText("denied", { ...facts, reason: "No.\n\nSee you" }, site).text).toContain("The reason given:\n\n> No.\n>\n> See you\n");
  });

  it("tell the requester the decision, the reminder and the end", () => {
    expect(accessMailText("approved", facts, site).text).toContain("was approved, until 2027-01-01 (the access ends when that day begins, UTC).");
    expect(accessMailText("approved", { ...facts, validUntil: null }, site).text).toContain("was approved, with no end date.");
    expect(accessMailText("approved", facts, site).text).toContain("https://enhydris.example.org/stations/3/");
    expect(accessMailText("denied", facts, site)).toEqual({
      subject: 'Your access request for station "Komboti" was denied',
      text: 'Your request on enhydris.example.org to read the protected data of station "Komboti" was denied.\n\nThe reason given:\n\n> Partners only.\n',
    });
    expect(accessMailText("reminder", facts, site).subject).toBe('Your access to station "Komboti" ends on 2027-01-01');
    expect(accessMailText("expired", facts, "").subject).toBe('Your access to station "Komboti" has ended');
    expect(accessMailText("expired", { ...facts, stationName: "" }, "").subject).toBe("Your access to station #3 has ended");
  });
});
