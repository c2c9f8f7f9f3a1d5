package com.bettercompute.adapters.http.console;

import com.bettercompute.application.access.ConsoleSessions;
import com.bettercompute.domain.DomainException;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.util.regex.Pattern;

/**
 * {@code /console/sign-in} and {@code /console/sign-out}. Signing in checks the token as the API does and
 * opens a new session (never one the browser brought along); signing out needs the session's CSRF token.
 */
final class SignIn {
    /** Where a sign-in may send the browser on: a console path, never another site. */
    private static final Pattern NEXT = Pattern.compile("^/console(/[A-Za-z0-9_./-]*)?$");

    private final Console console;

    SignIn(Console console) {
        this.console = console;
    }

    void install(RoutesConfig routes) {
        routes.get(Console.BASE + "/sign-in", this::form);
        routes.post(Console.BASE + "/sign-in", this::signIn);
        routes.post(Console.BASE + "/sign-out", this::signOut);
    }

    private void form(Context ctx) {
        if (console.session(ctx).isPresent()) {
            ctx.redirect(next(ctx.queryParam("next")), HttpStatus.SEE_OTHER);
            return;
        }
        page(ctx, 200, ctx.queryParam("next"), null);
    }

    private void signIn(Context ctx) {
        String next = ctx.formParam("next");
        if (!Console.sameOrigin(ctx)) {
            console.problem(ctx, Console.signedOutChrome("Sign in"), 403, "Not allowed", "Sign in from this server's own page.");
            return;
        }
        String token = ctx.formParam("token");
        if (token == null || token.isBlank()) {
            page(ctx, 400, next, "is required: paste your organization's API token");
            return;
        }
        try {
            console.api.authenticate().byToken(token.trim());
        } catch (DomainException e) {
            page(ctx, 401, next, "is not a valid API token");
            return;
        }
        console.sessions.close(ctx.cookie(Console.COOKIE));
        ConsoleSessions.Opened opened = console.sessions.open(Console.tokenHash(token.trim()));
        ctx.res().addHeader("Set-Cookie", cookie(opened.id(), Console.secure(ctx), false));
        ctx.redirect(next(next), HttpStatus.SEE_OTHER);
    }

    private void signOut(Context ctx) {
        String id = ctx.cookie(Console.COOKIE);
        var session = console.sessions.find(id);
        if (session.isPresent() && !(Console.sameOrigin(ctx) && session.get().csrfMatches(ctx.formParam(Console.CSRF_FIELD)))) {
            console.problem(ctx, Console.signedOutChrome("Sign out"), 403, "Form expired", "Reload the page and sign out again.");
            return;
        }
        console.sessions.close(id);
        ctx.res().addHeader("Set-Cookie", cookie("", Console.secure(ctx), true));
        ctx.redirect(Console.BASE + "/sign-in", HttpStatus.SEE_OTHER);
    }

    private void page(Context ctx, int status, String next, String error) {
        console.html(ctx, status, "signin.jte", new Model.SignInPage(Console.signedOutChrome("Sign in"),
                next != null && NEXT.matcher(next).matches() ? next : "", error));
    }

    static String next(String next) {
        return next != null && NEXT.matcher(next).matches() && !next.contains("//") && !next.startsWith(Console.BASE + "/sign-")
                ? next : Console.BASE + "/clusters";
    }

    /** The session cookie: only for the console's paths, out of scripts' reach, not sent along cross-site posts. */
    static String cookie(String id, boolean secure, boolean expire) {
        return Console.COOKIE + "=" + id + "; Path=" + Console.BASE + "; HttpOnly; SameSite=Lax"
                + (secure ? "; Secure" : "") + (expire ? "; Max-Age=0" : "");
    }
}
