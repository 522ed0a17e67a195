// A Tabletop Bot Protocol v1 bot (docs/protocol.md): plays a random legal move.
// Reads one JSON message a line on stdin, writes one a line on stdout; logs go to stderr.
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

// A small JSON reader: enough for every message of the protocol.
struct Json {
    enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
    bool boolean = false;
    double number = 0;
    std::string text;
    std::vector<Json> items;
    std::map<std::string, Json> members;

    const Json& operator[](const std::string& key) const {
        static const Json missing;
        auto it = members.find(key);
        return it == members.end() ? missing : it->second;
    }
};

class Reader {
public:
    explicit Reader(const std::string& s) : s_(s) {}
    Json parse() {
        Json v = value();
        space();
        if (i_ != s_.size()) throw std::runtime_error("trailing characters");
        return v;
    }

private:
    const std::string& s_;
    size_t i_ = 0;

    void space() { while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r' || s_[i_] == '\n')) ++i_; }
    char peek() { space(); if (i_ >= s_.size()) throw std::runtime_error("unexpected end"); return s_[i_]; }
    void expect(char c) { if (peek() != c) throw std::runtime_error(std::string("expected ") + c); ++i_; }
    bool word(const char* w) {
        std::string t(w);
        if (s_.compare(i_, t.size(), t) != 0) return false;
        i_ += t.size();
        return true;
    }

    Json value() {
        Json v;
        char c = peek();
        if (c == '{') {
            v.kind = Json::Object;
            ++i_;
            if (peek() == '}') { ++i_; return v; }
            while (true) {
                std::string key = string();
                expect(':');
                v.members[key] = value();
                if (peek() == ',') { ++i_; continue; }
                expect('}');
                return v;
            }
        }
        if (c == '[') {
            v.kind = Json::Array;
            ++i_;
            if (peek() == ']') { ++i_; return v; }
            while (true) {
                v.items.push_back(value());
                if (peek() == ',') { ++i_; continue; }
                expect(']');
                return v;
            }
        }
        if (c == '"') { v.kind = Json::String; v.text = string(); return v; }
        if (word("true")) { v.kind = Json::Bool; v.boolean = true; return v; }
        if (word("false")) { v.kind = Json::Bool; return v; }
        if (word("null")) return v;
        size_t start = i_;
        while (i_ < s_.size() && std::string("+-0123456789.eE").find(s_[i_]) != std::string::npos) ++i_;
        if (start == i_) throw std::runtime_error("unexpected character");
        v.kind = Json::Number;
        v.number = std::stod(s_.substr(start, i_ - start));
        return v;
    }

    std::string string() {
        expect('"');
        std::string out;
        while (true) {
            if (i_ >= s_.size()) throw std::runtime_error("unterminated string");
            char c = s_[i_++];
            if (c == '"') return out;
            if (c != '\\') { out += c; continue; }
            char e = s_[i_++];
            switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {   // the arena writes ASCII only: other characters come as \uXXXX
                    unsigned code = std::stoul(s_.substr(i_, 4), nullptr, 16);
                    i_ += 4;
                    if (code < 0x80) out += static_cast<char>(code);
                    else if (code < 0x800) { out += static_cast<char>(0xC0 | (code >> 6)); out += static_cast<char>(0x80 | (code & 0x3F)); }
                    else { out += static_cast<char>(0xE0 | (code >> 12)); out += static_cast<char>(0x80 | ((code >> 6) & 0x3F)); out += static_cast<char>(0x80 | (code & 0x3F)); }
                    break;
                }
                default: out += e;   // \" \\ \/
            }
        }
    }
};

int main() {
    std::ios::sync_with_stdio(false);
    std::mt19937_64 rng;
    std::string line;
    while (std::getline(std::cin, line)) {
        Json message = Reader(line).parse();
        const std::string& type = message["type"].text;
        if (type == "start") {
            rng.seed(static_cast<uint64_t>(message["seed"].number));
            std::cerr << "playing " << message["game"].text << " in seat " << message["seat"].number << "\n";
            std::cout << R"({"type":"hello","name":"cpp-starter","protocol":1})" << std::endl;
        } else if (type == "request") {
            const std::vector<Json>& legal = message["legal"].items;
            std::uniform_int_distribution<size_t> pick(0, legal.size() - 1);
            long long id = static_cast<long long>(legal[pick(rng)]["id"].number);
            std::cout << R"({"type":"action","id":)" << id << "}" << std::endl;   // endl flushes
        } else if (type == "end") {
            return 0;
        }
    }
    return 0;
}
