#include "app/mcp.h"

#include <iostream>

#include "api/router.h"
#include "app/runtime.h"
#include "mcp/transports.h"

namespace pc {

int RunMcp(const Config& config, const std::string& server_url) {
  // Standard output carries the protocol; everything else goes to standard error.
  if (!server_url.empty()) {
    McpTools tools(RemoteRoutes(server_url));
    McpServer server(tools);
    std::cerr << "powercontext mcp: stdio, tools calling " << server_url << std::endl;
    ServeMcpStdio(server, std::cin, std::cout);
    return 0;
  }
  auto built = BuildRuntime(config);
  if (!built.ok()) {
    std::cerr << "powercontext mcp: " << built.status().message() << std::endl;
    return 1;
  }
  Router router;
  AddRoutes(router, (*built)->services());
  McpTools tools(InProcessRoutes(router));
  McpServer server(tools);
  std::cerr << "powercontext mcp: stdio, data " << config.data_dir << std::endl;
  ServeMcpStdio(server, std::cin, std::cout);
  return 0;
}

}  // namespace pc
