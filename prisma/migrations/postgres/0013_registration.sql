-- CreateTable
CREATE TABLE "pending_activation" (
    "user_id" INTEGER NOT NULL,
    "token_hash" TEXT COLLATE "C" NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "pending_activation_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "registration_attempt" (
    "id" SERIAL NOT NULL,
    "address" TEXT COLLATE "C" NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "registration_attempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "captcha_used" (
    "signature" TEXT COLLATE "C" NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "captcha_used_pkey" PRIMARY KEY ("signature")
);

-- CreateIndex
CREATE INDEX "pending_activation_expires_at_idx" ON "pending_activation"("expires_at");

-- CreateIndex
CREATE INDEX "registration_attempt_address_at_idx" ON "registration_attempt"("address", "at");

-- CreateIndex
CREATE INDEX "captcha_used_expires_at_idx" ON "captcha_used"("expires_at");

-- AddForeignKey
ALTER TABLE "pending_activation" ADD CONSTRAINT "pending_activation_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
