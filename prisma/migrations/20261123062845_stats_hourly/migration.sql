-- CreateTable
CREATE TABLE "stats_hourly" (
    "project_id" TEXT NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "type" TEXT NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "stats_hourly_pkey" PRIMARY KEY ("project_id","hour","type")
);
