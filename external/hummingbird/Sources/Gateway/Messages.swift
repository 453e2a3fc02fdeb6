import Foundation

/// An error the error mapper renders as `{"type":"error","error":{…}}`.
struct GatewayError: Error, Sendable {
    let status: Int
    let type: String
    let message: String
    var headers: [(String, String)] = []

    init(_ spec: Contract.ErrorSpec, headers: [(String, String)] = []) {
        self.status = spec.status
        self.type = spec.type
        self.message = spec.message
        self.headers = headers
    }

    init(status: Int, type: String, message: String) {
        self.status = status
        self.type = type
        self.message = message
    }

    static func invalidRequest(_ message: String) -> GatewayError {
        GatewayError(status: 400, type: "invalid_request_error", message: message)
    }

    static func upstreamStatus(_ status: Int) -> GatewayError {
        let spec = Contract.upstreamStatus
        return GatewayError(status: spec.status, type: spec.type, message: Contract.fill(spec.message, "status", String(status)))
    }

    /// 405 with `Allow` when the path is known, else 404.
    static func noRoute(path: String) -> GatewayError {
        let allow = Contract.allowedMethods(path)
        if allow.isEmpty { return GatewayError(Contract.notFound) }
        return GatewayError(Contract.methodNotAllowed, headers: [("allow", allow.joined(separator: ", "))])
    }
}

// MARK: - auth

enum Auth {
    enum Failure { case missing, invalid }

    static func parseBearer(_ header: String?) -> String? {
        guard let header else { return nil }
        let trimmedEnd = header.replacingOccurrences(of: " +$", with: "", options: .regularExpression)
        guard trimmedEnd.count > 6, trimmedEnd.prefix(6).lowercased() == "bearer", trimmedEnd.dropFirst(6).first == " " else { return nil }
        let token = trimmedEnd.dropFirst(6).drop { $0 == " " }
        guard !token.isEmpty, !token.contains(" ") else { return nil }
        return String(token)
    }

    /// nil when a valid key is given in `x-api-key` or `Authorization: Bearer`.
    static func check(xAPIKey: String?, authorization: String?, keys: [String]) -> Failure? {
        var candidates: [String] = []
        if let x = xAPIKey, !x.isEmpty { candidates.append(x) }
        if let b = parseBearer(authorization) { candidates.append(b) }
        if candidates.isEmpty { return .missing }
        for c in candidates where keys.contains(where: { constantTimeEqual($0, c) }) { return nil }
        return .invalid
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}

// MARK: - validation and mapping

struct MessagesRequest: Sendable {
    let model: String
    let maxTokens: Int
    let messages: [(role: String, text: String)]
    let system: String?
    let stream: Bool
}

enum Mapping {
    private static func textOf(_ content: JSONValue?) -> String? {
        switch content {
        case .string(let s)?: return s
        case .array(let blocks)?:
            if blocks.isEmpty { return nil }
            var parts: [String] = []
            for block in blocks {
                guard case .object(let o) = block, case .string("text")? = o["type"], case .string(let t)? = o["text"] else { return nil }
                parts.append(t)
            }
            return parts.joined(separator: Contract.textBlockJoin)
        default: return nil
        }
    }

    /// First failing rule wins, in the contract's order.
    static func validate(_ body: JSONValue) throws -> MessagesRequest {
        guard case .object(let o) = body else { throw GatewayError(Contract.notAnObject) }
        guard case .string(let model)? = o["model"] else { throw GatewayError.invalidRequest(Contract.ruleModel) }
        guard case .number(let mt)? = o["max_tokens"], mt.rounded(.towardZero) == mt, mt >= 1, mt <= Contract.maxTokensMax else {
            throw GatewayError.invalidRequest(Contract.ruleMaxTokens)
        }
        guard case .array(let raw)? = o["messages"], !raw.isEmpty else { throw GatewayError.invalidRequest(Contract.ruleMessages) }
        var messages: [(role: String, text: String)] = []
        for (i, m) in raw.enumerated() {
            let index = String(i)
            guard case .object(let mo) = m else { throw GatewayError.invalidRequest(Contract.fill(Contract.ruleMessage, "i", index)) }
            guard case .string(let role)? = mo["role"], role == "user" || role == "assistant" else {
                throw GatewayError.invalidRequest(Contract.fill(Contract.ruleRole, "i", index))
            }
            guard let text = textOf(mo["content"]) else { throw GatewayError.invalidRequest(Contract.fill(Contract.ruleContent, "i", index)) }
            messages.append((role, text))
        }
        var system: String?
        if let s = o["system"] {
            guard let text = textOf(s) else { throw GatewayError.invalidRequest(Contract.ruleSystem) }
            system = text
        }
        var stream = false
        if let s = o["stream"] {
            guard case .bool(let b) = s else { throw GatewayError.invalidRequest(Contract.ruleStream) }
            stream = b
        }
        return MessagesRequest(model: model, maxTokens: Int(mt), messages: messages, system: system, stream: stream)
    }

    static func openAIRequest(_ req: MessagesRequest) -> String {
        var messages: [JSONOut] = []
        if let system = req.system { messages.append(.object([("role", .string("system")), ("content", .string(system))])) }
        for m in req.messages { messages.append(.object([("role", .string(m.role)), ("content", .string(m.text))])) }
        var pairs: [(String, JSONOut)] = [("model", .string(req.model)), ("messages", .array(messages)), ("max_tokens", .int(req.maxTokens))]
        if req.stream {
            pairs.append(("stream", .bool(true)))
            pairs.append(("stream_options", .object([("include_usage", .bool(true))])))
        }
        return JSONOut.object(pairs).text
    }

    static func stopReason(_ finish: JSONValue?) -> String {
        if case .string(let f)? = finish, let mapped = Contract.stopReasons[f] { return mapped }
        return Contract.defaultStopReason
    }

    /// nil when the upstream answer is unusable (→ 502 upstreamInvalid).
    static func anthropicMessage(_ upstream: JSONValue, model: String) -> String? {
        guard case .object(let o) = upstream, case .array(let choices)? = o["choices"], case .object(let choice)? = choices.first else { return nil }
        let text = choice["message"]?["content"]?.string ?? ""
        let usage = o["usage"]
        return JSONOut.object([
            ("id", .string(Contract.messageIdPrefix + (o["id"]?.string ?? ""))),
            ("type", .string("message")),
            ("role", .string("assistant")),
            ("model", .string(model)),
            ("content", .array([.object([("type", .string("text")), ("text", .string(text))])])),
            ("stop_reason", .string(stopReason(choice["finish_reason"]))),
            ("stop_sequence", .null),
            ("usage", .object([
                ("input_tokens", .int(usage?["prompt_tokens"]?.intOr0 ?? 0)),
                ("output_tokens", .int(usage?["completion_tokens"]?.intOr0 ?? 0)),
            ])),
        ]).text
    }
}

// MARK: - SSE translation

func sseEvent(_ name: String, _ data: JSONOut) -> String {
    "event: \(name)\ndata: \(data.text)\n\n"
}

/// OpenAI SSE bytes in (any chunking), Anthropic SSE events out.
struct StreamTranslator: Sendable {
    let model: String
    private var pending: [UInt8] = []
    private var started = false
    private(set) var done = false
    private var stopReason = Contract.defaultStopReason
    private var inputTokens = 0
    private var outputTokens = 0

    init(model: String) {
        self.model = model
    }

    mutating func push(_ bytes: some Sequence<UInt8>) -> String {
        pending.append(contentsOf: bytes)
        var out = ""
        while !done, let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var lineBytes = pending[pending.startIndex..<nl]
            if lineBytes.last == UInt8(ascii: "\r") { lineBytes = lineBytes.dropLast() }
            let line = String(decoding: lineBytes, as: UTF8.self)
            pending.removeSubrange(pending.startIndex...nl)
            out += self.line(line)
        }
        return out
    }

    func interrupted() -> String {
        sseEvent(Contract.errorEvent, .object([
            ("type", .string("error")),
            ("error", .object([("type", .string(Contract.streamInterruptedType)), ("message", .string(Contract.streamInterruptedMessage))])),
        ]))
    }

    private mutating func line(_ line: String) -> String {
        guard line.hasPrefix("data:") else { return "" }
        var data = line.dropFirst(5)
        if data.first == " " { data = data.dropFirst() }
        if data == "[DONE]" { return finish() }
        guard let chunk = try? JSONValue.parse(Data(data.utf8)), case .object(let o) = chunk else { return "" }
        var out = start(id: o["id"]?.string ?? "")
        if case .array(let choices)? = o["choices"], case .object(let choice)? = choices.first {
            if case .string(let text)? = choice["delta"]?["content"], !text.isEmpty {
                out += sseEvent("content_block_delta", .object([
                    ("type", .string("content_block_delta")),
                    ("index", .int(0)),
                    ("delta", .object([("type", .string("text_delta")), ("text", .string(text))])),
                ]))
            }
            if case .string(_)? = choice["finish_reason"] { stopReason = Mapping.stopReason(choice["finish_reason"]) }
        }
        if case .object(let usage)? = o["usage"] {
            inputTokens = usage["prompt_tokens"]?.intOr0 ?? 0
            outputTokens = usage["completion_tokens"]?.intOr0 ?? 0
        }
        return out
    }

    private mutating func start(id: String) -> String {
        if started { return "" }
        started = true
        return sseEvent("message_start", .object([
            ("type", .string("message_start")),
            ("message", .object([
                ("id", .string(Contract.messageIdPrefix + id)),
                ("type", .string("message")),
                ("role", .string("assistant")),
                ("model", .string(model)),
                ("content", .array([])),
                ("stop_reason", .null),
                ("stop_sequence", .null),
                ("usage", .object([("input_tokens", .int(0)), ("output_tokens", .int(0))])),
            ])),
        ])) + sseEvent("content_block_start", .object([
            ("type", .string("content_block_start")),
            ("index", .int(0)),
            ("content_block", .object([("type", .string("text")), ("text", .string(""))])),
        ]))
    }

    private mutating func finish() -> String {
        done = true
        return start(id: "")
            + sseEvent("content_block_stop", .object([("type", .string("content_block_stop")), ("index", .int(0))]))
            + sseEvent("message_delta", .object([
                ("type", .string("message_delta")),
                ("delta", .object([("stop_reason", .string(stopReason)), ("stop_sequence", .null)])),
                ("usage", .object([("input_tokens", .int(inputTokens)), ("output_tokens", .int(outputTokens))])),
            ]))
            + sseEvent("message_stop", .object([("type", .string("message_stop"))]))
    }
}
