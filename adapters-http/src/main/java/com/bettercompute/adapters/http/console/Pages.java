package com.bettercompute.adapters.http.console;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.access.ConsoleSessions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The routes of a signed-in person: each finds the session of the request's cookie (or sends the browser to
 * sign in), the caller of it, the caller's organization, and for a form the session's CSRF token; then
 * serves the page. A refusal of a use case becomes the console's page for it.
 */
final class Pages {
    /** One request of a signed-in person. */
    record Visit(Context ctx, Caller caller, ConsoleSessions.Session session, String org) {
        Model.Chrome chrome(String title, String section, Model.ClusterNav cluster, String live) {
            String flash = Flash.message(ctx.queryParam("done"), ctx.queryParam("name"));
            return new Model.Chrome(title, section, caller.id(), org, session.csrf(), cluster, live, flash);
        }

        String form(String field) {
            String v = ctx.formParam(field);
            return v == null ? "" : v.trim();
        }
    }

    @FunctionalInterface
    interface Page {
        void serve(Visit visit) throws Exception;
    }

    private final Console console;
    private final RoutesConfig routes;
    private final Console.Admission admission;

    Pages(Console console, RoutesConfig routes, Console.Admission admission) {
        this.console = console;
        this.routes = routes;
        this.admission = admission;
    }

    void get(String path, Page page) {
        routes.get(Console.BASE + path, ctx -> serve(ctx, page, false));
    }

    void post(String path, Page page) {
        routes.post(Console.BASE + path, ctx -> serve(ctx, page, true));
    }

    private void serve(Context ctx, Page page, boolean form) {
        Model.Chrome plain = Console.signedOutChrome("Console");
        Optional<ConsoleSessions.Session> session = console.session(ctx);
        if (session.isEmpty()) {
            if (form) {
                console.problem(ctx, plain, 403, "Signed out", "Your session has ended. Sign in again, then send the form again.");
            } else {
                ctx.redirect(Console.BASE + "/sign-in?next=" + URLEncoder.encode(ctx.path(), StandardCharsets.UTF_8), HttpStatus.SEE_OTHER);
            }
            return;
        }
        Caller caller;
        try {
            caller = console.api.authenticate().bySession(session.get().tokenSha256());
        } catch (DomainException e) {
            console.sessions.close(ctx.cookie(Console.COOKIE));
            ctx.redirect(Console.BASE + "/sign-in", HttpStatus.SEE_OTHER);
            return;
        }
        // a principal over its share is refused as the API refuses it (429 with Retry-After)
        admission.admit(ctx, caller.id());
        Visit visit = null;
        try {
            if (form && !(Console.sameOrigin(ctx) && session.get().csrfMatches(ctx.formParam(Console.CSRF_FIELD)))) {
                console.problem(ctx, plain, 403, "Form expired", "The form was not sent from this session's page. Reload the page and try again.");
                return;
            }
            String org = console.console.callers().org(caller, null);
            visit = new Visit(ctx, caller, session.get(), org);
            page.serve(visit);
        } catch (DomainException e) {
            if (e.code() == ErrorCode.UNAUTHENTICATED) {
                ctx.redirect(Console.BASE + "/sign-in", HttpStatus.SEE_OTHER);
                return;
            }
            console.problem(ctx, visit == null ? plain : visit.chrome("Console", null, null, null), e);
        } catch (Exception e) {
            console.problem(ctx, visit == null ? plain : visit.chrome("Console", null, null, null), e);
        }
    }

    /** After a form: back to a page (303, so a reload does not send the form again). */
    static void seeOther(Context ctx, String path) {
        ctx.redirect(Console.BASE + path, HttpStatus.SEE_OTHER);
    }
}
