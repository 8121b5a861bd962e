-- CreateTable
CREATE TABLE "access_request" (
    "id" SERIAL NOT NULL,
    "station_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "message" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "status" TEXT COLLATE "C" NOT NULL DEFAULT 'pending',
    "created" TIMESTAMP(3) NOT NULL,
    "decided" TIMESTAMP(3),
    "decided_by_id" INTEGER,
    "valid_until" TIMESTAMP(3),
    "reason" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "granted" BOOLEAN NOT NULL DEFAULT false,
    "reminded_at" TIMESTAMP(3),

    CONSTRAINT "access_request_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "access_request_station_id_status_idx" ON "access_request"("station_id", "status");

-- CreateIndex
CREATE INDEX "access_request_user_id_idx" ON "access_request"("user_id");

-- CreateIndex
CREATE INDEX "access_request_status_valid_until_idx" ON "access_request"("status", "valid_until");

-- CreateIndex
CREATE INDEX "access_request_decided_by_id_idx" ON "access_request"("decided_by_id");

-- AddForeignKey
ALTER TABLE "access_request" ADD CONSTRAINT "access_request_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_request" ADD CONSTRAINT "access_request_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_request" ADD CONSTRAINT "access_request_decided_by_id_fkey" FOREIGN KEY ("decided_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;


-- One pending request per user and station (public.md §2); by hand: Prisma has no partial indexes.
CREATE UNIQUE INDEX "access_request_one_pending" ON "access_request"("station_id", "user_id") WHERE "status" = 'pending';
