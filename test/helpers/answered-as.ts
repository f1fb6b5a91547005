/** How an error thrown by the service's code is answered over HTTP: its code and status. */
import { isServiceError } from "../../core/errors.ts";
import { httpStatus } from "../../core/http/error-status.ts";

export function answeredAs(error: unknown): { code: string; status: number } {
  if (!isServiceError(error)) throw new Error(`not a ServiceError: ${String(error)}`);
  return { code: error.code, status: httpStatus(error) };
}
