// nginxConfig (tests/support/hubemulationsite.h): the nginx.conf of an emulated Hub. The three
// pieces that make Debian's nginx look like the Hub are model-sourcing.md section 5's, checked
// there against real llama-server: an exact location per resolve URL whose add_header lines ride
// on the 302 (add_header covers 302 without "always"), the API answers as static JSON files
// (the query string is not read), and an "if" on the Authorization header for a gated repo.

#include "tests/support/hubemulationsite.h"

#include <sstream>

namespace llamafit::test {
namespace {

// A string for nginx.conf in double quotes. The config parser turns \" and \\ back into " and \;
// a location name is matched as written (no variables), and repo paths have no control characters
// (describeRepos refused them).
std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
        }
        out += c;
    }
    return out + "\"";
}

// The 401 a gated repo answers without the token. huggingface_hub tells a gated repo from a
// missing one by X-Error-Code (utils/_http.py hf_raise_for_status); the body is for people.
// The token is letters, digits, '_' and '-' (HubEmulation::start checked it), so it needs no
// quoting inside the string nginx compiles with variables.
void writeGate(std::ostringstream& conf, const HubSiteRepo& repo, const std::string& token) {
    if (!repo.gated) {
        return;
    }
    conf << "    if ($http_authorization != \"Bearer " << token << "\") {\n"
         << "        add_header X-Error-Code GatedRepo always;\n"
         << "        return 401 \"Access to model " << repo.repoId
         << " is restricted. You must have access to it and be authenticated to access it.\\n\";\n"
         << "    }\n";
}

// GET /api/models/{repo}/...: the JSON files under www/. With ?recursive=true a tree URL takes
// the .recursive.json listing; refs and model info have one file whatever the query says.
void writeApiFiles(std::ostringstream& conf) {
    conf << "    default_type \"application/json; charset=utf-8\";\n"
         << "    try_files $uri$hub_tree_variant.json $uri.json =404;\n";
}

void writeResolve(std::ostringstream& conf, const HubSiteRepo& repo, const HubSiteFile& file,
                  const std::string& revision, const std::string& token, std::uint16_t port) {
    conf << "location = " << quoted("/" + repo.repoId + "/resolve/" + revision + "/" + file.repoPath)
         << " {\n";
    writeGate(conf, repo, token);
    // The metadata a client reads off the resolve answer without following it
    // (file_download.py get_hf_file_metadata, model-sourcing.md section 1): the commit, and for an
    // LFS file its sha256 and size on the 302 itself, whose ETag is the git id of the pointer.
    conf << "    add_header X-Repo-Commit " << repo.commit << ";\n"
         << "    add_header ETag '\"" << file.gitOid << "\"';\n";
    if (file.lfs) {
        conf << "    add_header X-Linked-Etag '\"" << file.sha256 << "\"';\n"
             << "    add_header X-Linked-Size " << file.size << ";\n"
             << "    add_header Accept-Ranges bytes;\n"
             << "    return 302 http://127.0.0.2:" << port << "/cdn/" << file.sha256 << ";\n";
    } else {
        // A small git file comes straight from the Hub (nginx's own ETag would replace the git id).
        conf << "    etag off;\n"
             << "    alias blobs/" << file.sha256 << ";\n";
    }
    conf << "}\n";
}

// ?cursor=N pages of the search answer, linked as the Hub does (Link: <URL>; rel="next",
// huggingface_hub utils/_pagination.py, model-sourcing.md section 1). The next URL repeats the
// client's query with cursor=N last: $hub_search_query is that query without its cursor.
void writeSearchMaps(std::ostringstream& conf, std::size_t pages, std::uint16_t port) {
    conf << "    map $args $hub_search_query {\n"
         << "        \"\" \"\";\n"
         << "        \"~^cursor=[^&]*$\" \"\";\n"
         << "        \"~^cursor=[^&]*&(?<hub_after>.*)$\" \"${hub_after}&\";\n"
         << "        \"~^(?<hub_before>.*)&cursor=[^&]*$\" \"${hub_before}&\";\n"
         << "        \"~^(?<hub_before2>.*)&cursor=[^&]*&(?<hub_after2>.*)$\" "
            "\"${hub_before2}&${hub_after2}&\";\n"
         << "        default \"${args}&\";\n"
         << "    }\n";
    // The page a cursor names; an unknown cursor finds no page file and answers 400.
    conf << "    map $arg_cursor $hub_search_page {\n"
         << "        \"\" 1;\n"
         << "        default invalid;\n";
    for (std::size_t page = 1; page <= pages; ++page) {
        conf << "        " << page << " " << page << ";\n";
    }
    conf << "    }\n";
    // The last page has no Link (an empty add_header value sends no header).
    conf << "    map $arg_cursor $hub_search_next {\n"
         << "        default \"\";\n";
    for (std::size_t page = 1; page < pages; ++page) {
        const std::string link = "'<http://127.0.0.1:" + std::to_string(port) +
                                 "/api/models?${hub_search_query}cursor=" + std::to_string(page + 1) +
                                 ">; rel=\"next\"'";
        if (page == 1) {
            conf << "        \"\" " << link << ";\n";
        }
        conf << "        " << page << " " << link << ";\n";
    }
    conf << "    }\n";
}

} // namespace

std::string nginxConfig(const std::vector<HubSiteRepo>& repos, const std::string& token,
                        std::size_t searchPages, std::uint16_t port) {
    std::ostringstream conf;
    // One process in the foreground: HubEmulation owns it, and with a single process nginx handles
    // one event at a time, which makes accessLog() deterministic. Every path is relative to the
    // work folder (-p); the built-in ones (/var/lib/nginx, /run/nginx.pid) are system paths.
    conf << "# Written by tests/support/hubemulation (an emulated Hugging Face Hub); nginx -p <work folder>\n"
         << "daemon off;\n"
         << "master_process off;\n"
         << "worker_processes 1;\n"
         << "pid nginx.pid;\n"
         << "lock_file nginx.lock;\n"
         << "error_log error.log warn;\n"
         << "events {\n    worker_connections 512;\n}\n"
         << "http {\n"
         << "    client_body_temp_path temp/client_body;\n"
         << "    proxy_temp_path temp/proxy;\n"
         << "    fastcgi_temp_path temp/fastcgi;\n"
         << "    uwsgi_temp_path temp/uwsgi;\n"
         << "    scgi_temp_path temp/scgi;\n"
         << "    default_type application/octet-stream;\n"
         << "    sendfile on;\n"
         << "    server_tokens off;\n";
    // Tab-separated; nginx writes '"', '\' and bytes outside 0x20-0x7e of a value as \xHH and an
    // empty value as '-', so a line always splits into the same fields (parsed in hubemulation.cpp).
    // No buffer=: each line is written when its request is finished.
    conf << "    log_format hub '$request_method\\t$request_uri\\t$status\\t$body_bytes_sent\\t$http_range\\t"
            "$http_authorization\\t$http_host\\t$server_addr\\t$http_user_agent';\n"
         << "    access_log access.log hub;\n"
         << "    map $arg_recursive $hub_tree_variant {\n"
         << "        default \"\";\n"
         << "        true .recursive;\n"
         << "    }\n";
    writeSearchMaps(conf, searchPages, port);

    // The Hub: API and resolve URLs. Its locations are written one level in, then indented.
    std::ostringstream locations;
    locations << "location / {\n    return 404;\n}\n"
              << "location = /__hubemulation/barrier {\n"
              << "    access_log off;\n"
              << "    return 204;\n"
              << "}\n"
              << "location = /api/models {\n"
              << "    default_type \"application/json; charset=utf-8\";\n"
              << "    add_header Link $hub_search_next;\n"
              << "    try_files /api/search/page-$hub_search_page.json =400;\n"
              << "}\n"
              << "location /api/ {\n";
    writeApiFiles(locations);
    locations << "}\n";
    for (const HubSiteRepo& repo : repos) {
        if (repo.gated) {
            const std::string api = "/api/models/" + repo.repoId;
            for (const std::string& location : {"^~ " + quoted(api + "/"), "= " + quoted(api)}) {
                locations << "location " << location << " {\n";
                writeGate(locations, repo, token);
                writeApiFiles(locations);
                locations << "}\n";
            }
        }
        for (const HubSiteFile& file : repo.files) {
            for (const std::string& revision : {std::string("main"), repo.commit}) {
                writeResolve(locations, repo, file, revision, token, port);
            }
        }
    }
    conf << "    server {\n"
         << "        listen 127.0.0.1:" << port << ";\n"
         << "        root www;\n";
    std::istringstream lines(locations.str());
    for (std::string line; std::getline(lines, line);) {
        conf << "        " << line << "\n";
    }
    conf << "    }\n";

    // The CDN: only the content, by sha256, never behind the token.
    conf << "    server {\n"
         << "        listen 127.0.0.2:" << port << ";\n"
         << "        location / {\n            return 404;\n        }\n"
         << "        location ^~ /cdn/ {\n"
         << "            root cdn;\n"
         << "        }\n"
         // Files a test puts under <work>/static/ while nginx runs (HubEmulation::staticDirectory):
         // other sites on the same real server, such as llama.cpp's GitHub releases.
         << "        location ^~ /static/ {\n"
         << "            root .;\n"
         << "        }\n"
         << "    }\n"
         << "}\n";
    return conf.str();
}

} // namespace llamafit::test
