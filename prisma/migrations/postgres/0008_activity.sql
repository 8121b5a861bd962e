-- CreateTable
CREATE TABLE "activity" (
    "id" SERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "user_id" INTEGER,
    "username" TEXT COLLATE "C" NOT NULL DEFAULT '',
    "action" TEXT COLLATE "C" NOT NULL,
    "object_type" TEXT COLLATE "C" NOT NULL,
    "object_id" INTEGER NOT NULL,
    "station_id" INTEGER,
    "summary" TEXT COLLATE "C" NOT NULL,

    CONSTRAINT "activity_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "activity_station_id_id_idx" ON "activity"("station_id", "id");

