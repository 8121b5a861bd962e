-- AlterTable
ALTER TABLE "synoptic_warning" ADD COLUMN     "withheld" TEXT NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "alarm_email_sent" (
    "id" SERIAL NOT NULL,
    "recipient" TEXT COLLATE "C" NOT NULL,
    "sent_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "alarm_email_sent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "alarm_email_sent_recipient_sent_at_idx" ON "alarm_email_sent"("recipient", "sent_at");

