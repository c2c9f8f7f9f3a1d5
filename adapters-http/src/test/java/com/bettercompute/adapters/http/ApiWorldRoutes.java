package com.bettercompute.adapters.http;

import java.util.List;

/** The route table of a server with every resource installed, started once for the tests that read it. */
final class ApiWorldRoutes {
    private static List<Router.Route> routes;

    private ApiWorldRoutes() {}

    static synchronized List<Router.Route> all() {
        if (routes == null) {
            try (ApiWorld world = ApiWorld.start()) {
                routes = world.server.routes();
            }
        }
        return routes;
    }
}
