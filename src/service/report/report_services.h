// The Handoff Report's services over one store, served together (api/report_routes.cc).
#pragma once

#include "service/report/activity_service.h"
#include "service/report/catalog_service.h"
#include "service/report/report_service.h"
#include "service/report/workspace_service.h"

namespace pc {

struct ReportServices {
  explicit ReportServices(Store& store)
      : catalog(store), workspaces(store), activities(store), reports(store) {}
  CatalogService catalog;
  WorkspaceService workspaces;
  ActivityService activities;
  ReportService reports;
};

}  // namespace pc
