package com.bettercompute.adapters.http.console;

import com.bettercompute.application.access.ConsoleSessions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.Map;

import static com.bettercompute.application.market.MarketWorld.ALICE;
import static org.assertj.core.api.Assertions.assertThat;

/** Signing in to the console, the session cookie, its expiry by the injected clock, signing out, CSRF. */
class ConsoleSessionsTest {
    final ConsoleWorld world = new ConsoleWorld();

    @AfterEach
    void stop() {
        world.close();
    }

    @ParameterizedTest(name = "{0} without a session goes to sign in")
    @CsvSource({"/console/clusters", "/console/market", "/console/balance", "/console/clusters/kcl_acmetrajn00000000000000000/workloads"})
    void a_page_without_a_session_sends_the_browser_to_sign_in_and_back(String path) {
        ConsoleWorld.Page p = world.browser().get(path);
        assertThat(p.status()).isEqualTo(303);
        assertThat(p.location()).isEqualTo("/console/sign-in?next=" + path.replace("/", "%2F"));
    }

    @Test
    void a_valid_token_opens_a_session_in_an_http_only_same_site_cookie_and_the_page_names_the_caller() {
        ConsoleWorld.Browser b = world.browser();
        ConsoleWorld.Page signedIn = b.signIn(ALICE);
        assertThat(signedIn.status()).isEqualTo(303);
        assertThat(signedIn.location()).isEqualTo("/console/clusters");
        String cookie = signedIn.header("set-cookie");
        assertThat(cookie).startsWith("bc_console=").contains("; Path=/console", "; HttpOnly", "; SameSite=Lax")
                .doesNotContain("Secure").doesNotContain(ALICE);
        ConsoleWorld.Page clusters = b.get("/console/clusters");
        assertThat(clusters.status()).isEqualTo(200);
        assertThat(clusters.body()).contains("user:alice@acme.example", "acme", ">train<");
        assertThat(clusters.header("cache-control")).isEqualTo("no-store");
        assertThat(clusters.header("content-security-policy")).contains("frame-ancestors 'none'");
    }

    @Test
    void over_https_the_cookie_is_secure() {
        ConsoleWorld.Browser b = world.browser();
        b.extraHeaders.put("X-Forwarded-Proto", "https");
        assertThat(b.signIn(ALICE).header("set-cookie")).contains("; Secure");
    }

    @ParameterizedTest(name = "token \"{0}\" is refused beside the field")
    @CsvSource(value = {"''|is required", "not-a-token|is not a valid API token"}, delimiter = '|')
    void a_bad_token_returns_the_form_with_the_problem_beside_the_field(String token, String problem) {
        ConsoleWorld.Browser b = world.browser();
        ConsoleWorld.Page p = b.signIn(token);
        assertThat(p.status()).isBetween(400, 401);
        assertThat(p.header("set-cookie")).isNull();
        assertThat(p.body()).contains("id=\"token-error\"").contains(problem).contains("aria-invalid=\"true\"");
    }

    @Test
    void sign_in_never_sends_the_browser_to_another_site() {
        ConsoleWorld.Browser b = world.browser();
        ConsoleWorld.Page p = b.post("/console/sign-in", Map.of("token", ALICE, "next", "//evil.example/console"));
        assertThat(p.location()).isEqualTo("/console/clusters");
        assertThat(SignIn.next("https://evil.example/")).isEqualTo("/console/clusters");
        assertThat(SignIn.next("/console/market")).isEqualTo("/console/market");
    }

    @Test
    void a_session_ends_after_an_hour_idle_by_the_injected_clock_and_is_kept_alive_by_use() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        world.w.ports.clock().advance(ConsoleSessions.IDLE.minusMinutes(1));
        assertThat(b.get("/console/clusters").status()).isEqualTo(200);
        world.w.ports.clock().advance(ConsoleSessions.IDLE.minusMinutes(1));
        assertThat(b.get("/console/clusters").status()).as("used a minute ago, the idle clock restarted").isEqualTo(200);
        world.w.ports.clock().advance(ConsoleSessions.IDLE);
        assertThat(b.get("/console/clusters").status()).isEqualTo(303);
    }

    @Test
    void a_session_ends_twelve_hours_after_sign_in_however_busy() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        for (Duration d = Duration.ZERO; d.compareTo(ConsoleSessions.LIFETIME.minusMinutes(30)) < 0; d = d.plusMinutes(30)) {
            world.w.ports.clock().advance(Duration.ofMinutes(30));
            assertThat(b.get("/console/clusters").status()).isEqualTo(200);
        }
        world.w.ports.clock().advance(Duration.ofMinutes(30));
        assertThat(b.get("/console/clusters").status()).isEqualTo(303);
    }

    @Test
    void sign_out_ends_the_session_and_clears_the_cookie() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        String csrf = b.get("/console/clusters").csrf();
        ConsoleWorld.Page out = b.post("/console/sign-out", Map.of("_csrf", csrf));
        assertThat(out.status()).isEqualTo(303);
        assertThat(out.header("set-cookie")).contains("Max-Age=0");
        assertThat(b.get("/console/clusters").status()).as("the old cookie names no session").isEqualTo(303);
    }

    @Test
    void a_form_without_the_sessions_csrf_token_is_refused_and_changes_nothing() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        String path = "/console/clusters/kcl_acmetrajn00000000000000000/limit-price";
        assertThat(b.post(path, Map.of("limit_price", "2.40")).status()).isEqualTo(403);
        assertThat(b.post(path, Map.of("limit_price", "2.40", "_csrf", "forged")).status()).isEqualTo(403);
        ConsoleWorld.Browser other = world.signedIn(ALICE);
        String othersToken = other.get("/console/clusters").csrf();
        assertThat(b.post(path, Map.of("limit_price", "2.40", "_csrf", othersToken)).status())
                .as("another session's token").isEqualTo(403);
        assertThat(world.w.bids.read(world.w.caller(ALICE), null, "train").limit()).isNull();

        String mine = b.get("/console/clusters").csrf();
        assertThat(b.post(path, Map.of("limit_price", "2.40", "_csrf", mine)).status()).isEqualTo(303);
        assertThat(world.w.bids.read(world.w.caller(ALICE), null, "train").limit()).hasToString("2.40");
    }

    @Test
    void a_form_posted_from_another_origin_is_refused_even_with_the_token() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        String csrf = b.get("/console/clusters").csrf();
        b.extraHeaders.put("Origin", "https://evil.example");
        assertThat(b.post("/console/clusters/kcl_acmetrajn00000000000000000/limit-price",
                Map.of("limit_price", "2.40", "_csrf", csrf)).status()).isEqualTo(403);
        assertThat(b.post("/console/sign-in", Map.of("token", ALICE)).status()).isEqualTo(403);
    }

    @Test
    void the_session_store_holds_only_hashes_never_the_cookie_the_csrf_token_or_the_api_token() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        String csrf = b.get("/console/clusters").csrf();
        String id = b.cookie.substring(b.cookie.indexOf('=') + 1);

        assertThat(world.sessions.dump()).doesNotContain(ALICE).doesNotContain(csrf).doesNotContain(id)
                .contains(com.bettercompute.domain.cluster.Ids.sha256Hex(id));
    }
}
