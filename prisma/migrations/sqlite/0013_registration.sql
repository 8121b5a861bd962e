-- CreateTable
CREATE TABLE "pending_activation" (
    "user_id" INTEGER NOT NULL PRIMARY KEY,
    "token_hash" TEXT NOT NULL,
    "expires_at" DATETIME NOT NULL,
    CONSTRAINT "pending_activation_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "registration_attempt" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "address" TEXT NOT NULL,
    "at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "captcha_used" (
    "signature" TEXT NOT NULL PRIMARY KEY,
    "expires_at" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "pending_activation_expires_at_idx" ON "pending_activation"("expires_at");

-- CreateIndex
CREATE INDEX "registration_attempt_address_at_idx" ON "registration_attempt"("address", "at");

-- CreateIndex
CREATE INDEX "captcha_used_expires_at_idx" ON "captcha_used"("expires_at");
