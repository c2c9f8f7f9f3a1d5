package com.bettercompute.adapters.gke.simulator;

import com.google.api.AnnotationsProto;
import com.google.api.HttpRule;
import com.google.container.v1.ClusterManagerGrpc;
import com.google.container.v1.ClusterServiceProto;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import com.google.protobuf.Message;
import io.grpc.MethodDescriptor.PrototypeMarshaller;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The REST routes of GKE's API, derived from the {@code google.api.http} options that the proto
 * descriptors carry (every binding, the legacy {@code /zones/} forms included), never hand-written.
 */
final class RestRoutes {

    /** One HTTP binding of one RPC. */
    record Route(String httpMethod, String template, Pattern pattern, List<String> variables, String body, String rpc, Message requestPrototype) {

        /** The path variables (field name → value) when the path matches, else null. */
        Map<String, String> match(String path) {
            Matcher m = pattern.matcher(path);
            if (!m.matches()) {
                return null;
            }
            Map<String, String> values = new LinkedHashMap<>();
            for (int i = 0; i < variables.size(); i++) {
                values.put(variables.get(i), m.group(i + 1));
            }
            return values;
        }
    }

    private final List<Route> routes;

    RestRoutes() {
        Map<String, Message> prototypes = new LinkedHashMap<>();
        for (io.grpc.MethodDescriptor<?, ?> method : allGrpcMethods()) {
            if (method.getRequestMarshaller() instanceof PrototypeMarshaller<?> marshaller) {
                prototypes.put(method.getBareMethodName(), (Message) marshaller.getMessagePrototype());
            }
        }
        ServiceDescriptor service = ClusterServiceProto.getDescriptor().findServiceByName("ClusterManager");
        List<Route> list = new ArrayList<>();
        for (MethodDescriptor method : service.getMethods()) {
            if (!method.getOptions().hasExtension(AnnotationsProto.http)) {
                continue;
            }
            HttpRule rule = method.getOptions().getExtension(AnnotationsProto.http);
            Message prototype = prototypes.get(method.getName());
            add(list, rule, method.getName(), prototype);
            for (HttpRule binding : rule.getAdditionalBindingsList()) {
                add(list, binding, method.getName(), prototype);
            }
        }
        this.routes = List.copyOf(list);
    }

    private static List<io.grpc.MethodDescriptor<?, ?>> allGrpcMethods() {
        List<io.grpc.MethodDescriptor<?, ?>> methods = new ArrayList<>();
        ClusterManagerGrpc.getServiceDescriptor().getMethods().forEach(methods::add);
        return methods;
    }

    private static void add(List<Route> list, HttpRule rule, String rpc, Message prototype) {
        String method;
        String template;
        switch (rule.getPatternCase()) {
            case GET -> { method = "GET"; template = rule.getGet(); }
            case POST -> { method = "POST"; template = rule.getPost(); }
            case PUT -> { method = "PUT"; template = rule.getPut(); }
            case DELETE -> { method = "DELETE"; template = rule.getDelete(); }
            case PATCH -> { method = "PATCH"; template = rule.getPatch(); }
            default -> { return; }
        }
        List<String> variables = new ArrayList<>();
        list.add(new Route(method, template, compile(template, variables), List.copyOf(variables), rule.getBody(), rpc, prototype));
    }

    /**
     * Compiles a path template ({@code /v1/{name=projects/*}/x:verb}, {@code /v1/projects/{project_id}})
     * into a regular expression, one group per variable. A segment never holds a slash or a colon.
     */
    static Pattern compile(String template, List<String> variables) {
        StringBuilder regex = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c == '{') {
                int end = template.indexOf('}', i);
                String inner = template.substring(i + 1, end);
                int eq = inner.indexOf('=');
                String name = eq < 0 ? inner : inner.substring(0, eq);
                String sub = eq < 0 ? "*" : inner.substring(eq + 1);
                variables.add(name);
                regex.append('(').append(segments(sub)).append(')');
                i = end + 1;
            } else {
                int next = template.indexOf('{', i);
                String literal = next < 0 ? template.substring(i) : template.substring(i, next);
                regex.append(Pattern.quote(literal));
                i = next < 0 ? template.length() : next;
            }
        }
        return Pattern.compile(regex.toString());
    }

    private static String segments(String sub) {
        StringBuilder regex = new StringBuilder();
        String[] parts = sub.split("/");
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                regex.append('/');
            }
            switch (parts[i]) {
                case "*" -> regex.append("[^/:]+");
                case "**" -> regex.append("[^:]+");
                default -> regex.append(Pattern.quote(parts[i]));
            }
        }
        return regex.toString();
    }

    List<Route> routes() {
        return routes;
    }

    /** The route of this method and path, or null. */
    Route find(String httpMethod, String path) {
        for (Route route : routes) {
            if (route.httpMethod().equals(httpMethod) && route.pattern().matcher(path).matches()) {
                return route;
            }
        }
        return null;
    }

    /** Whether some route has this path with another method (a 405 rather than a 404). */
    boolean pathKnown(String path) {
        return routes.stream().anyMatch(r -> r.pattern().matcher(path).matches());
    }
}
