-- CreateTable
CREATE TABLE "alarm_email_sent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "recipient" TEXT NOT NULL,
    "sent_at" DATETIME NOT NULL
);

-- AlterTable (by hand: a new column with a constant default needs no table rebuild)
ALTER TABLE "synoptic_warning" ADD COLUMN "withheld" TEXT NOT NULL DEFAULT '[]';

-- CreateIndex
CREATE INDEX "alarm_email_sent_recipient_sent_at_idx" ON "alarm_email_sent"("recipient", "sent_at");
