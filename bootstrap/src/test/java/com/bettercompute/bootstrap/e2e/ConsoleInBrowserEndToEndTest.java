package com.bettercompute.bootstrap.e2e;

import com.bettercompute.adapters.gke.simulator.FilestoreSimulator;
import com.bettercompute.bootstrap.ServerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import static com.bettercompute.bootstrap.e2e.MarketInTenantClusterEndToEndTest.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, driven by
 * Selenium through {@code /usr/bin/chromedriver}: nothing downloads a browser) against the embedded default
 * with the market ticking every second: a person signs in with the API token, sends a broken create form and
 * reads the API's message beside the field, creates a cluster and watches it turn ready, applies a Job
 * whose row on the Workloads page reads the limit price too low, sets a limit price on the cluster page and
 * sees the row turn "gang scheduled", then watches the market chart follow the feed; and a person reads a cluster's
 * shared volume on the Storage page (its bytes and charge following a file written into the share), keeps it through
 * the cluster delete's unchecked box, loses another with the box ticked, and deletes the kept one by typing its
 * storage name back; and a person reads a LoadBalancer Service's address on its cluster's Workloads page, the one its
 * status carries. One server and one browser serve every test; each test signs in afresh and names its own
 * clusters. Each page is saved as a screenshot under {@code target/console/}: a test run never changes a tracked
 * file. The documented screenshots in {@code docs/console/} are refreshed by
 * {@code docs/tools/refresh-console-screenshots.sh}, which runs this test with {@code -Dconsole.screenshots=} naming
 * that folder.
 */
class ConsoleInBrowserEndToEndTest {
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path SHOTS = Path.of(System.getProperty("console.screenshots", Path.of("target", "console").toString()));

    /** The server and the browser every test here shares; each test signs in afresh and names its own clusters. */
    static RunningServer server;
    static ChromeDriver browser;
    static ChromeDriverService service;

    @BeforeAll
    static void openBrowserAndStartServer() throws IOException {
        assertThat(Files.isExecutable(CHROMEDRIVER) && Files.isExecutable(CHROMIUM))
                .as("Debian's chromium and chromium-driver are installed (.ci/run installs them)").isTrue();
        service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=1280,900", "--lang=en-US");
        browser = new ChromeDriver(service, options);
        // the market's catalog, its pool provisioning shared volumes, billed at $0.20 per GiB-month, sampled every second
        Path catalog = MarketJobEndToEndTest.catalog();
        Files.writeString(catalog, Files.readString(catalog) + "\nstorage:\n  sharedVolumePools: [" + RunningServer.POOL
                + "]\n  sampleEvery: 1s\n  billing:\n    - {site: us-central1, pricePerGiBMonth: \"0.20\"}\n"
                + "loadBalancers:\n  addressPools:\n    - {region: us-central1, limit: 10}\n");
        server = RunningServer.start(ServerConfig.defaults().withPort(0).withDb(RunningServer.h2())
                .withCatalog(catalog).withProvider("simulator", null, 1, 1, 2).withMarketTickSeconds(1));
        server.server().simulator().orElseThrow().addressPool(LoadBalancerEndToEndTest.ownRange());
    }

    @AfterAll
    static void closeBrowserAndServer() {
        if (browser != null) {
            browser.quit();
        }
        if (service != null) {
            service.stop();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void signedOut() {
        browser.manage().deleteAllCookies();
    }

    @Test
    void a_person_signs_in_creates_a_cluster_sets_a_limit_price_and_watches_the_market_grant_the_job() throws Exception {
        try {
            signInCreateBidAndWatch();
        } catch (Throwable t) {
            throw withThePage(t);
        }
    }

    private void signInCreateBidAndWatch() throws Exception {
        RunningServer s = server;
        String base = s.baseUrl();

        browser.get(base + "/console");
        assertThat(browser.getCurrentUrl()).contains("/console/sign-in");
        shot("sign-in");
        browser.findElement(By.id("token")).sendKeys("not-a-token");
        submit(By.cssSelector("form button[type=submit]"));
        assertThat(browser.findElement(By.id("token-error")).getText()).isEqualTo("is not a valid API token");
        browser.findElement(By.id("token")).sendKeys(RunningServer.ALICE);
        submit(By.cssSelector("main form button[type=submit]"));
        assertThat(browser.getCurrentUrl()).endsWith("/console/clusters");

        // a broken form comes back with the API's message beside the field and what was typed
        type("name", "Web_1");
        type("location", "us-central1-a");
        type("poolId", RunningServer.POOL);
        type("np-name", "cpu");
        type("np-machine", "e2-standard-4");
        type("np-count", "1");
        submit(By.cssSelector("form.grid-form button[type=submit]"));
        assertThat(browser.findElement(By.id("name-error")).getText()).startsWith("must be lower-case letters, digits and hyphens");
        assertThat(browser.findElement(By.id("np-machine")).getAttribute("value")).isEqualTo("e2-standard-4");
        shot("clusters-form-error");
        type("name", "web");
        submit(By.cssSelector("form.grid-form button[type=submit]"));
        assertThat(browser.findElement(By.cssSelector(".flash")).getText()).isEqualTo("Cluster web is being created.");
        String clusterUrl = browser.getCurrentUrl().replaceAll("\\?.*", "");

        await("the cluster page reads ready", () -> {
            browser.get(clusterUrl);
            return browser.findElement(By.id("cluster-state")).getText().equals("ready") ? true : null;
        });
        await("the market panel once the cluster is enrolled", () -> {
            browser.get(clusterUrl);
            return browser.findElements(By.id("max-cluster-size")).isEmpty() ? null : true;
        });
        assertThat(browser.findElement(By.id("max-cluster-size")).getText()).startsWith("32 GPUs");

        // a Job in the cluster: its row reads the limit price too low, with no limit set
        String clusterId = clusterUrl.substring(clusterUrl.lastIndexOf('/') + 1);
        JsonNode cluster = s.call("get", RunningServer.ALICE, Map.of("tenantId", "acme", "clusterId", clusterId)).json();
        Path dir = Files.createTempDirectory("console-e2e");
        try (KubernetesClient k = MarketJobEndToEndTest.client(s, RunningServer.ALICE, cluster, dir.resolve("web.kubeconfig"))) {
            MarketJobEndToEndTest.platformObjectsAreIn(k);
            MarketJobEndToEndTest.apply(k, dir.resolve("web.kubeconfig"), MarketJobEndToEndTest.job("train", null));
            await("the job's row reads the limit price too low", () -> {
                browser.get(clusterUrl + "/workloads");
                return reason().contains("below the pool's reserve") ? true : null;
            });
            shot("workloads-bid-too-low");

            browser.get(clusterUrl);
            type("limit_price", "0.50");
            submit(By.cssSelector("form[action$='/limit-price'] button"));
            assertThat(browser.findElement(By.id("limit-error")).getText()).contains("bid-too-low");
            shot("cluster-bid-too-low");
            type("limit_price", "2.40");
            submit(By.cssSelector("form[action$='/limit-price'] button"));
            assertThat(browser.findElement(By.id("limit-now")).getText()).contains("$2.40");
            shot("cluster");

            // the Workloads page follows the feed by itself: no reload here
            browser.get(clusterUrl + "/workloads");
            await("the row turns gang scheduled as the market grants the job", () ->
                    reason().contains("gang scheduled") ? true : null);
            assertThat(reason()).contains("Running on its granted nodes");
            shot("workloads");
            browser.get(clusterUrl + "/nodes");
            assertThat(browser.findElements(By.cssSelector("#nodes .tile"))).hasSize(2);
            shot("nodes");
        }

        browser.get(base + "/console/market");
        WebElement figure = browser.findElement(By.cssSelector("figure[data-chart='us-central1/h100-8x']"));
        await("the chart redrawn from the feed's events", () -> {
            String redraws = figure.getAttribute("data-redraws");
            return redraws != null && Integer.parseInt(redraws) >= 2 ? true : null;
        });
        assertThat(figure.findElements(By.cssSelector("polyline.line-supply"))).isNotEmpty();
        shot("market");

        await("charges on the balance page", () -> {
            browser.get(base + "/console/balance");
            return browser.findElements(By.cssSelector("#charge-totals tbody tr")).isEmpty() ? null : true;
        });
        shot("balance");

        // another organization's cluster is the 404 page, never its data
        JsonNode rival = MarketJobEndToEndTest.readyCluster(s, RunningServer.CAROL, "globex", "serve");
        browser.get(base + "/console/clusters/" + rival.get("id").asText());
        assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("Not found");
        assertThat(browser.getPageSource()).doesNotContain("serve");
        shot("not-found");

        browser.get(base + "/console/clusters");
        shot("clusters");
    }

    @Test
    void a_person_sees_the_clusters_volumes_on_the_storage_page_keeps_one_through_the_cluster_delete_and_deletes_it_by_its_name()
            throws Exception {
        try {
            storageStory();
        } catch (Throwable t) {
            throw withThePage(t);
        }
    }

    private void storageStory() throws Exception {
        String base = server.baseUrl();
        // two clusters made at once: one whose volume outlives it, one deleted with its volume
        String data = server.call("create", RunningServer.ALICE, ClustersApiContract.standard("acme", "data")).json().get("id").asText();
        String scratch = server.call("create", RunningServer.ALICE, ClustersApiContract.standard("acme", "scratch")).json().get("id").asText();
        for (String id : new String[] {data, scratch}) {
            await(id + " ready", () -> server.call("get", RunningServer.ALICE, Map.of("tenantId", "acme", "clusterId", id))
                    .json().get("state").asText().equals("ready") ? true : null);
        }
        String storageName = server.call("get", RunningServer.ALICE, Map.of("tenantId", "acme", "clusterId", data)).json()
                .get("sharedVolume").get("storageName").asText();
        signIn(base);

        // the cluster's page tells where every node mounts the volume
        browser.get(base + "/console/clusters/" + data);
        assertThat(browser.findElement(By.id("shared-volume-path")).getText()).isEqualTo("/mnt/shared");
        assertThat(browser.findElement(By.id("shared-volume")).getText()).contains("data-shared", storageName, "2 TiB");

        // a file written into the share: the Storage page's bytes and charge follow
        FilestoreSimulator filestore = server.server().filestoreSimulator().orElseThrow();
        Files.write(filestore.shareDirectory("platform-prod", "us-central1-a", storageName).resolve("dataset.bin"), new byte[1 << 20]);
        await("the row holds the bytes written", () -> {
            browser.get(base + "/console/storage");
            return "1048576".equals(row(storageName).findElement(By.cssSelector("td.bytes")).getAttribute("data-bytes")) ? true : null;
        });
        WebElement attached = row(storageName);
        assertThat(attached.findElement(By.cssSelector(".label")).getText()).isEqualTo("data-shared");
        assertThat(attached.findElement(By.cssSelector(".storage-name")).getText()).isEqualTo(storageName);
        assertThat(attached.findElement(By.cssSelector("td.cluster a")).getText()).isEqualTo("data");
        assertThat(attached.findElement(By.cssSelector("td.bytes")).getText()).isEqualTo("1.0 MiB");
        assertThat(attached.findElement(By.cssSelector("td.charge")).getText()).startsWith("$0.000195 per month");

        // an attached volume is refused, naming its cluster
        deleteVolume(storageName, storageName);
        assertThat(row(storageName).findElement(By.cssSelector(".form-error")).getText())
                .contains("attached to cluster data", "Delete the cluster first");

        // the cluster delete offers the box unchecked; left so, the volume is preserved
        browser.get(base + "/console/clusters/" + data);
        assertThat(browser.findElement(By.id("deleteVolume")).isSelected()).isFalse();
        assertThat(browser.findElement(By.cssSelector("label[for=deleteVolume]")).getText()).isEqualTo("also delete my storage volume");
        type("confirm", "data");
        submit(By.cssSelector("form[action$='/delete'] button.danger"));
        assertThat(browser.findElement(By.cssSelector(".flash")).getText()).isEqualTo("Cluster data is being deleted.");
        await("the volume preserved, no cluster", () -> {
            browser.get(base + "/console/storage");
            return row(storageName).findElement(By.cssSelector("td.cluster")).getText().equals("preserved, no cluster") ? true : null;
        });
        assertThat(Files.exists(filestore.shareDirectory("platform-prod", "us-central1-a", storageName).resolve("dataset.bin"))).isTrue();

        // ticked, the volume goes with its cluster
        String scratchVolume = server.call("get", RunningServer.ALICE, Map.of("tenantId", "acme", "clusterId", scratch)).json()
                .get("sharedVolume").get("storageName").asText();
        browser.get(base + "/console/clusters/" + scratch);
        type("confirm", "scratch");
        browser.findElement(By.id("deleteVolume")).click();
        submit(By.cssSelector("form[action$='/delete'] button.danger"));
        await("the opted-in volume destroyed at the provider", () ->
                filestore.instanceNames().stream().noneMatch(n -> n.endsWith("/" + scratchVolume)) ? true : null);

        // the typed confirmation: anything but the storage name exactly is refused beside the field
        browser.get(base + "/console/storage");
        deleteVolume(storageName, storageName.toUpperCase(java.util.Locale.ROOT));
        assertThat(browser.findElement(By.id("confirm-error-" + storageName)).getText()).contains("type its storage name " + storageName);
        assertThat(Files.exists(filestore.shareDirectory("platform-prod", "us-central1-a", storageName))).isTrue();
        deleteVolume(storageName, storageName);
        assertThat(browser.findElement(By.cssSelector(".flash")).getText()).startsWith("Volume data-shared is being deleted");
        await("the volume and its files gone", () -> {
            browser.get(base + "/console/storage");
            return browser.findElements(By.cssSelector("tr[data-volume='" + storageName + "']")).isEmpty()
                    && !Files.exists(filestore.shareDirectory("platform-prod", "us-central1-a", storageName)) ? true : null;
        });
    }

    @Test
    void a_person_reads_each_services_endpoint_on_the_workloads_page() throws Exception {
        try {
            servicesStory();
        } catch (Throwable t) {
            throw withThePage(t);
        }
    }

    private void servicesStory() throws Exception {
        RunningServer s = server;
        JsonNode cluster = MarketJobEndToEndTest.readyCluster(s, RunningServer.ALICE, "acme", "front");
        String workloads = s.baseUrl() + "/console/clusters/" + cluster.get("id").asText() + "/workloads";
        Path dir = Files.createTempDirectory("console-services-e2e");
        try (KubernetesClient k = MarketJobEndToEndTest.client(s, RunningServer.ALICE, cluster, dir.resolve("front.kubeconfig"))) {
            await("the platform's Service webhook", () -> k.admissionRegistration().v1().mutatingWebhookConfigurations()
                    .withName("better-compute-load-balancers").get());
            k.services().inNamespace("default").resource(new io.fabric8.kubernetes.api.model.ServiceBuilder()
                    .withNewMetadata().withName("storefront").endMetadata()
                    .withNewSpec().withType("LoadBalancer").addToSelector("app", "storefront")
                    .addNewPort().withName("https").withProtocol("TCP").withPort(ThreadLocalRandom.current().nextInt(20_000, 29_000))
                    .withNewTargetPort(8443).endPort().endSpec().build()).create();
            String ip = await("storefront's address", () -> {
                var status = k.services().inNamespace("default").withName("storefront").get().getStatus().getLoadBalancer();
                return status.getIngress() == null || status.getIngress().isEmpty() ? null : status.getIngress().get(0).getIp();
            });

            signIn(s.baseUrl());
            browser.get(workloads);
            WebElement row = browser.findElement(By.cssSelector("#services tr[data-service='default/storefront']"));
            assertThat(row.findElement(By.cssSelector("td.endpoint")).getText()).isEqualTo(ip);
            assertThat(row.getText()).contains("serving");
        }
    }

    private void signIn(String base) {
        browser.get(base + "/console/sign-in");
        browser.findElement(By.id("token")).sendKeys(RunningServer.ALICE);
        submit(By.cssSelector("main form button[type=submit]"));
        assertThat(browser.getCurrentUrl()).endsWith("/console/clusters");
    }

    /** The Storage page's row of a volume. */
    private WebElement row(String storageName) {
        return browser.findElement(By.cssSelector("tr[data-volume='" + storageName + "']"));
    }

    /** Delete volume on the row, typing {@code typed} back. */
    private void deleteVolume(String storageName, String typed) {
        WebElement details = row(storageName).findElement(By.cssSelector("details.delete-volume"));
        if (details.getAttribute("open") == null) {
            details.findElement(By.tagName("summary")).click();
        }
        type("confirm-" + storageName, typed);
        submit(By.cssSelector("tr[data-volume='" + storageName + "'] button.danger"));
    }

    /**
     * A failure with what the browser showed when it happened: its address and the page's text in the message, the
     * page as a PNG in {@code target/} (a step that fails after a full build is otherwise hard to read afterwards).
     */
    private AssertionError withThePage(Throwable t) {
        String where;
        try {
            String text = browser.findElement(By.tagName("body")).getText();
            File png = browser.getScreenshotAs(OutputType.FILE);
            Path saved = Path.of("target", "console-e2e-failure.png");
            Files.createDirectories(saved.getParent());
            Files.copy(png.toPath(), saved, StandardCopyOption.REPLACE_EXISTING);
            where = "the browser at " + browser.getCurrentUrl() + " (screenshot " + saved.toAbsolutePath() + ") showed:\n"
                    + (text.length() > 3000 ? text.substring(0, 3000) + " …" : text);
        } catch (RuntimeException | IOException e) {
            where = "the browser's page could not be read: " + e;
        }
        return new AssertionError(t.getMessage() + "\n" + where, t);
    }

    private String reason() {
        return browser.findElements(By.cssSelector("#workloads td.reason")).stream().map(WebElement::getText)
                .findFirst().orElse("");
    }

    /**
     * Clicks a form's button and waits until the browser has left the page and loaded the answer: a click
     * returns as soon as the event is dispatched, before the POST's answer is in, so reading the next page
     * at once could find the old one.
     */
    private void submit(By button) {
        WebElement before = browser.findElement(By.tagName("html"));
        browser.findElement(button).click();
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        wait.until(ExpectedConditions.stalenessOf(before));
        wait.until(d -> "complete".equals(((JavascriptExecutor) d).executeScript("return document.readyState")));
    }

    private void type(String id, String text) {
        WebElement e = browser.findElement(By.id(id));
        e.clear();
        e.sendKeys(text);
    }

    /** The whole page as a PNG in {@link #SHOTS}: the window grown to the page's height for the shot. */
    private void shot(String name) throws IOException {
        Dimension before = browser.manage().window().getSize();
        Number height = (Number) ((JavascriptExecutor) browser).executeScript(
                "return Math.max(document.body.scrollHeight, document.documentElement.scrollHeight)");
        browser.manage().window().setSize(new Dimension(1280, Math.min(6000, height.intValue() + 120)));
        File png = browser.getScreenshotAs(OutputType.FILE);
        Files.createDirectories(SHOTS);
        Files.copy(png.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        browser.manage().window().setSize(before);
    }
}
