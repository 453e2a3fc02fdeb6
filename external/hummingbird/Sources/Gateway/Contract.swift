// Mirror of packages/servers/contract/contract-b.json (contract B as data).
// The Node and Python gateways read that file at run time; this binary carries the same
// values compiled in, and packages/servers/test/gateway-contract.test.ts fails when a
// message, header, metric name, bucket or validation rule here drifts from the JSON.

import Foundation

enum Contract {
    // env
    static let envPort = "PORT"
    static let envBackendURL = "BACKEND_URL"
    static let envAPIKeys = "GATEWAY_API_KEYS"
    static let envModelID = "MODEL_ID"
    static let envUpstreamPoolSize = "UPSTREAM_POOL_SIZE"
    static let envRequestLog = "GATEWAY_REQUEST_LOG"

    // defaults
    static let defaultModelID = "bench-model"
    static let defaultAPIKeys = ["bench-key"]
    static let defaultUpstreamPoolSize = 128
    static let upstreamTimeoutMs: Int64 = 60000

    // limits
    static let maxBodyBytes = 1048576

    // routes: (method, path, auth)
    static let routes: [(method: String, path: String, auth: Bool)] = [
        ("GET", "/healthz", false),
        ("GET", "/metrics", false),
        ("GET", "/v1/models", true),
        ("POST", "/v1/messages", true),
    ]

    // headers
    static let jsonType = "application/json; charset=utf-8"
    static let sseType = "text/event-stream; charset=utf-8"
    static let sseCacheControl = "no-cache"
    static let metricsType = "text/plain; version=0.0.4; charset=utf-8"

    // bodies
    static let healthzBody = "{\"status\":\"ok\"}"

    // errors: key -> (status, type, message)
    struct ErrorSpec: Sendable {
        let status: Int
        let type: String
        let message: String
    }
    static let notFound = ErrorSpec(status: 404, type: "not_found_error", message: "Not found")
    static let methodNotAllowed = ErrorSpec(status: 405, type: "invalid_request_error", message: "Method not allowed")
    static let payloadTooLarge = ErrorSpec(status: 413, type: "request_too_large", message: "Request body exceeds 1048576 bytes")
    static let unsupportedMediaType = ErrorSpec(status: 415, type: "invalid_request_error", message: "Content-Type must be application/json")
    static let missingApiKey = ErrorSpec(status: 401, type: "authentication_error", message: "Missing API key: send x-api-key or Authorization: Bearer <key>")
    static let invalidApiKey = ErrorSpec(status: 401, type: "authentication_error", message: "Invalid API key")
    static let invalidJson = ErrorSpec(status: 400, type: "invalid_request_error", message: "Request body is not valid JSON")
    static let notAnObject = ErrorSpec(status: 400, type: "invalid_request_error", message: "Request body must be a JSON object")
    static let upstreamUnreachable = ErrorSpec(status: 502, type: "api_error", message: "Upstream request failed")
    static let upstreamStatus = ErrorSpec(status: 502, type: "api_error", message: "Upstream returned HTTP ${status}")
    static let upstreamInvalid = ErrorSpec(status: 502, type: "api_error", message: "Upstream returned an invalid response")
    static let internalError = ErrorSpec(status: 500, type: "api_error", message: "Internal server error")
    static let streamInterruptedType = "api_error"
    static let streamInterruptedMessage = "Upstream stream ended unexpectedly"

    // validation (first failing rule wins; ${i} is the 0-based message index)
    static let maxTokensMax: Double = 9007199254740991
    static let ruleModel = "model: must be a string"
    static let ruleMaxTokens = "max_tokens: must be an integer greater than 0"
    static let ruleMessages = "messages: must be a non-empty array"
    static let ruleMessage = "messages.${i}: must be an object"
    static let ruleRole = "messages.${i}.role: must be \"user\" or \"assistant\""
    static let ruleContent = "messages.${i}.content: must be a string or a non-empty array of text blocks"
    static let ruleSystem = "system: must be a string or a non-empty array of text blocks"
    static let ruleStream = "stream: must be a boolean"
    static let textBlockJoin = "\n"

    // mapping
    static let messageIdPrefix = "msg_"
    static let stopReasons: [String: String] = ["stop": "end_turn", "length": "max_tokens"]
    static let defaultStopReason = "end_turn"
    static let upstreamPath = "/v1/chat/completions"

    // SSE
    static let errorEvent = "error"

    // metrics
    static let counterSample = "hb_requests_total"
    static let histogramFamily = "http_server_request_duration"
    static let labelRoute = "http_route"
    static let labelMethod = "http_request_method"
    static let labelStatus = "http_response_status_code"
    static let unmatchedRoute = "unmatched"
    static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

    static func fill(_ template: String, _ key: String, _ value: String) -> String {
        template.replacingOccurrences(of: "${\(key)}", with: value)
    }

    static func allowedMethods(_ path: String) -> [String] {
        routes.filter { $0.path == path }.map { $0.method }
    }

    static func routeLabel(_ path: String) -> String {
        routes.contains { $0.path == path } ? path : unmatchedRoute
    }

    static func isJSONContentType(_ value: String?) -> Bool {
        guard let value else { return false }
        let media = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return media.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }
}
