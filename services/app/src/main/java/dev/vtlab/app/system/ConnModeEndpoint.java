package dev.vtlab.app.system;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

import dev.vtlab.app.system.LabSettings.ConnMode;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * /actuator/connmode, for the rig only (on the management port, which listens on the service's own address): reads
 * the connection mode requests now run with, and switches it ({"mode": "held"} or "released") between two steps of
 * a staircase, when no request is in flight. Anything else is refused with 400, naming the accepted values.
 */
@Endpoint(id = "connmode")
public class ConnModeEndpoint {

    private final LiveConnMode live;

    public ConnModeEndpoint(LiveConnMode live) {
        this.live = live;
    }

    @ReadOperation
    public Map<String, String> read() {
        return view();
    }

    @WriteOperation
    public WebEndpointResponse<Map<String, String>> write(String mode) {
        ConnMode wanted = Arrays.stream(ConnMode.values())
                .filter(value -> value.name().equalsIgnoreCase(mode)).findFirst().orElse(null);
        if (wanted == null) {
            return new WebEndpointResponse<>(Map.of("error", "mode must be one of " + accepted() + ", not " + mode),
                    WebEndpointResponse.STATUS_BAD_REQUEST);
        }
        live.switchTo(wanted);
        return new WebEndpointResponse<>(view());
    }

    private Map<String, String> view() {
        return Map.of("mode", live.current().name().toLowerCase(Locale.ROOT));
    }

    private static String accepted() {
        return String.join(", ", Arrays.stream(ConnMode.values()).map(v -> v.name().toLowerCase(Locale.ROOT))
                .toList());
    }
}
