#include "service/core/actor.h"

#include "auth/request_context.h"

namespace pc {

Actor RequestActor() {
  const RequestContext& rc = CurrentRequest();
  return Actor{rc.principal->name, rc.operation, rc.request_id};
}

}  // namespace pc
