-- CreateTable
CREATE TABLE "activity" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "at" DATETIME NOT NULL,
    "user_id" INTEGER,
    "username" TEXT NOT NULL DEFAULT '',
    "action" TEXT NOT NULL,
    "object_type" TEXT NOT NULL,
    "object_id" INTEGER NOT NULL,
    "station_id" INTEGER,
    "summary" TEXT NOT NULL
);

-- CreateIndex
CREATE INDEX "activity_station_id_id_idx" ON "activity"("station_id", "id");

