package com.bettercompute.adapters.http;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.signin.OAuthRefusal;
import com.bettercompute.application.signin.SignIn;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.input.Input;
import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The platform as the OpenID Connect provider of its clusters: discovery and the JWKS (public, cacheable),
 * the device authorization grant (RFC 8628) and its token endpoint (OAuth's own error words, never the API's
 * error shape), and the approval page a person opens from the plugin's link — also one {@code POST} a program
 * makes with its org token.
 */
final class OidcRoutes {
    static final String DISCOVERY = "/.well-known/openid-configuration";
    static final String JWKS = "/oidc/jwks";
    static final String DEVICE = "/oidc/device/code";
    static final String TOKEN = "/oidc/token";
    static final String VERIFY = "/signin";
    static final String DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
    /**
     * Requests a minute one client address may send to the unauthenticated OAuth endpoints: a plugin polls
     * twelve times a minute; the bound keeps anyone from filling the grants table.
     */
    static final int OAUTH_PER_MINUTE = 60;

    private OidcRoutes() {}

    static void install(RoutesConfig routes, SignInUseCases s, Authentication authentication) {
        AddressLimits oauthLimits = new AddressLimits(OAUTH_PER_MINUTE, s.clock());
        routes.get(DISCOVERY, ctx -> {
            ctx.header("Cache-Control", "public, max-age=3600");
            Responses.json(ctx, 200, discovery(s.issuer().get()));
        });
        routes.get(JWKS, ctx -> {
            // short enough that a rotated key is seen well inside the previous key's last tokens' lifetime
            ctx.header("Cache-Control", "public, max-age=300");
            Responses.json(ctx, 200, s.keys().publicKeys());
        });
        routes.post(DEVICE, ctx -> oauth(ctx, oauthLimits, () -> {
            SignIn.DeviceAuthorization d = s.signIn().start(ctx.formParam("client_id"));
            String verify = s.issuer().get() + VERIFY;
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("device_code", d.deviceCode());
            body.put("user_code", d.userCode());
            body.put("verification_uri", verify);
            body.put("verification_uri_complete", verify + "?user_code=" + d.userCode());
            body.put("expires_in", d.expiresInSeconds());
            body.put("interval", d.intervalSeconds());
            return body;
        }));
        routes.post(TOKEN, ctx -> oauth(ctx, oauthLimits, () -> {
            String grant = ctx.formParam("grant_type");
            SignIn.Tokens t;
            if (DEVICE_GRANT.equals(grant)) {
                t = s.signIn().redeemDeviceCode(ctx.formParam("device_code"));
            } else if ("refresh_token".equals(grant)) {
                t = s.signIn().refresh(ctx.formParam("refresh_token"));
            } else {
                throw new OAuthRefusal("unsupported_grant_type", "grant_type must be " + DEVICE_GRANT + " or refresh_token.");
            }
            Map<String, Object> body = new LinkedHashMap<>();
            // kubectl presents the ID token as its bearer token; OAuth asks for an access_token, so it is that too
            body.put("access_token", t.idToken());
            body.put("id_token", t.idToken());
            body.put("token_type", "Bearer");
            body.put("expires_in", t.expiresInSeconds());
            body.put("refresh_token", t.refreshToken());
            return body;
        }));
        routes.get(VERIFY, ctx -> page(ctx, s));
        routes.post(VERIFY, ctx -> decide(ctx, s, authentication));
    }

    static Map<String, Object> discovery(String issuer) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("issuer", issuer);
        d.put("jwks_uri", issuer + JWKS);
        d.put("token_endpoint", issuer + TOKEN);
        d.put("device_authorization_endpoint", issuer + DEVICE);
        d.put("response_types_supported", List.of("id_token"));
        d.put("subject_types_supported", List.of("public"));
        d.put("id_token_signing_alg_values_supported", List.of("RS256"));
        d.put("grant_types_supported", List.of(DEVICE_GRANT, "refresh_token"));
        d.put("token_endpoint_auth_methods_supported", List.of("none"));
        d.put("claims_supported", List.of("iss", "sub", "aud", "exp", "iat", "nbf", "groups"));
        return d;
    }

    private static void oauth(Context ctx, AddressLimits limits, java.util.function.Supplier<Map<String, Object>> call) {
        ctx.header("Cache-Control", "no-store");
        limits.admit(ctx.ip());
        try {
            Responses.json(ctx, 200, call.get());
        } catch (OAuthRefusal e) {
            Responses.json(ctx, e.status(), Map.of("error", e.error(), "error_description", e.getMessage()));
        }
    }

    /** The approval page: a form for the code, or the cluster the code is for with Approve and Deny. */
    private static void page(Context ctx, SignInUseCases s) {
        ctx.header("Cache-Control", "no-store");
        String code = ctx.queryParam("user_code");
        StringBuilder body = new StringBuilder();
        if (code == null || code.isBlank()) {
            body.append("<p>Type the code the sign-in link showed.</p>")
                    .append("<form method=\"get\" action=\"").append(VERIFY).append("\">")
                    .append("<label>Code <input name=\"user_code\" autocomplete=\"off\"></label> <button>Next</button></form>");
        } else {
            try {
                SignIn.Pending p = s.signIn().pending(code);
                body.append("<p>kubectl asks to sign you in to the cluster <b>").append(html(p.clusterName()))
                        .append("</b> of the organization <b>").append(html(p.tenantId())).append("</b>.</p>")
                        .append("<p>Check that your terminal shows the code <b>").append(html(p.userCode())).append("</b>.</p>")
                        .append("<form method=\"post\" action=\"").append(VERIFY).append("\">")
                        .append("<input type=\"hidden\" name=\"user_code\" value=\"").append(html(p.userCode())).append("\">")
                        .append("<label>Org API token <input type=\"password\" name=\"token\" autocomplete=\"off\"></label> ")
                        .append("<button name=\"action\" value=\"approve\">Approve</button> ")
                        .append("<button name=\"action\" value=\"deny\">Deny</button></form>");
            } catch (DomainException e) {
                ctx.status(e.code() == com.bettercompute.domain.ErrorCode.NOT_FOUND ? 404 : 400);
                body.append("<p>").append(html(e.getMessage())).append("</p>");
            }
        }
        ctx.contentType("text/html; charset=utf-8").result(html("Sign in to a cluster", body.toString()));
    }

    /**
     * Approve or deny: {@code Authorization: Bearer <org token>} (or the page's {@code token} field) and the
     * {@code user_code} (form or JSON), {@code action} {@code approve} (the default) or {@code deny}.
     * Answers JSON, or a page when the page's form sent it.
     */
    private static void decide(Context ctx, SignInUseCases s, Authentication authentication) throws IOException {
        ctx.header("Cache-Control", "no-store");
        String contentType = ctx.contentType() == null ? "" : ctx.contentType();
        String userCode;
        String action;
        String formToken = null;
        if (contentType.startsWith("application/json")) {
            JsonNode body = Json.MAPPER.readTree(ctx.bodyAsBytes());
            if (body == null || !body.isObject()) {
                throw Input.invalid("", "the body must be a JSON object with user_code");
            }
            userCode = body.path("user_code").isTextual() ? body.path("user_code").asText() : null;
            action = body.path("action").isTextual() ? body.path("action").asText() : null;
        } else {
            userCode = ctx.formParam("user_code");
            action = ctx.formParam("action");
            formToken = ctx.formParam("token");
        }
        if (userCode == null || userCode.isBlank()) {
            throw Input.invalid("user_code", "is required");
        }
        boolean approve;
        if (action == null || action.equals("approve")) {
            approve = true;
        } else if (action.equals("deny")) {
            approve = false;
        } else {
            throw Input.invalid("action", "must be approve or deny");
        }
        Caller caller = formToken != null && ctx.header("Authorization") == null
                ? authentication.callerWithToken(ctx, formToken) : authentication.caller(ctx);
        SignIn.Decided d = s.signIn().decide(caller, userCode, approve);
        if (formToken != null) {
            ctx.contentType("text/html; charset=utf-8").result(html("Sign in to a cluster", d.approved()
                    ? "<p>Approved: kubectl is signed in to <b>" + html(d.clusterName()) + "</b> as <b>" + html(d.role())
                    + "</b>. You can close this page.</p>"
                    : "<p>Denied: the sign-in to <b>" + html(d.clusterName()) + "</b> will not go through.</p>"));
            return;
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("cluster", d.clusterName());
        answer.put("org", d.tenantId());
        answer.put("approved", d.approved());
        answer.put("role", d.role());
        Responses.json(ctx, 200, answer);
    }

    private static String html(String title, String body) {
        return "<!doctype html><html><head><meta charset=\"utf-8\"><title>" + html(title) + "</title></head><body><h1>"
                + html(title) + "</h1>" + body + "</body></html>";
    }

    static String html(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
