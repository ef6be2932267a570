import { errorBody } from "@/lib/server/api/errors";

// Unknown API paths answer in the API's own JSON error shape, never with the console's HTML 404.
function notFound() {
  return Response.json(errorBody("not_found", "No such API endpoint."), { status: 404 });
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
