-- CreateIndex
CREATE INDEX "station_name_idx" ON "station"("name");

-- CreateIndex
CREATE INDEX "station_lat_idx" ON "station"("lat");

