/**
 * The methods the app's routes take on a path, read from Express 5's own router stack (router
 * 2.x layers), so the OPTIONS answer and a 405's Allow can never drift from the routes. It walks
 * every layer, so it runs only for OPTIONS and for requests no route took, never on the way of a
 * request a route serves.
 */

/** The route of a router 2.x layer, as far as this reads it. */
interface RouteLike {
  /** Its methods, upper case, HEAD added for GET (`.all()` is not listed). */
  _methods(): string[];
  /** Whether it takes `method` (HEAD through GET, anything through `.all()`). */
  _handlesMethod(method: string): boolean;
}

/**
 * A router 2.x layer, as far as this reads it; Express's published types describe the layers of
 * Express 4. A layer made by `.use(path, router)` holds the mounted Router as its handle.
 */
interface LayerLike {
  route?: RouteLike;
  handle: { stack?: unknown };
  match(path: string): false | { path: string };
}

export interface PathMethods {
  /** The methods routes take on the path, upper case, sorted; empty for an unknown path. */
  allow: string[];
  /** Whether a route on the path takes `method` itself (such as the widget's CORS preflight). */
  handles(method: string): boolean;
}

/** The methods of `path` in a router's `stack` (the app's: `req.app.router.stack`). */
export function pathMethods(stack: readonly unknown[], path: string): PathMethods {
  const routes = [...routesOn(stack as readonly LayerLike[], path)];
  const allow = [...new Set(routes.flatMap((route) => route._methods()))].sort();
  return {
    allow,
    handles: (method) => routes.some((route) => route._handlesMethod(method)),
  };
}

/** The routes whose path matches, mounted routers included, in the order the router tries them. */
function* routesOn(stack: readonly LayerLike[], path: string): Generator<RouteLike> {
  for (const layer of stack) {
    const match = matchOf(layer, path);
    if (match === false) continue;
    if (layer.route !== undefined) {
      yield layer.route;
    } else if (Array.isArray(layer.handle.stack)) {
      // The router strips the mount path and keeps a leading slash before a mounted router runs.
      const rest = path.slice(match.path.length);
      yield* routesOn(layer.handle.stack as LayerLike[], rest.startsWith("/") ? rest : `/${rest}`);
    }
  }
}

/** A layer's match of `path`; false also for a parameter that does not decode (`%ZZ`). */
function matchOf(layer: LayerLike, path: string): false | { path: string } {
  try {
    return layer.match(path);
  } catch {
    return false;
  }
}
