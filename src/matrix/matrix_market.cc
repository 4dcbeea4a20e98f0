// Matrix Market files for the sparse matrices: a parallel reader (every rank parses the lines
// that start in its share of the file's bytes, then the triples go to create_coo) and a parallel
// writer (every rank formats its own tiles and writes them at its offset of the one file).
#include "smatrix.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <strings.h>
#include <unistd.h>

namespace pgdds::matrix {

using containers::agree;

namespace {

struct mm_header {
    uint64_t rows = 0, cols = 0, nnz = 0;
    bool pattern = false, symmetric = false;
    long data = 0;  // the offset of the first line after the size line
};

// A file closed on every path.
struct file {
    FILE *f = nullptr;
    ~file()
    {
        if (f) fclose(f);
    }
};

status open_file(const char *who, const char *path, file &out)
{
    out.f = fopen(path, "r");
    if (!out.f)
        return fail(errno == ENOENT ? PGDDS_ERR_NOT_FOUND : PGDDS_ERR_INVALID_ARG, "%s: cannot open %s: %s", who, path,
                    strerror(errno));
    return PGDDS_OK;
}

// Whole-token numbers: false on anything but digits (and, for values, a number) up to a blank.
bool parse_index(const char *&p, uint64_t &out)
{
    while (*p == ' ' || *p == '\t') ++p;
    if (*p < '0' || *p > '9') return false;
    char *end = nullptr;
    errno = 0;
    out = strtoull(p, &end, 10);
    if (errno || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r')) return false;
    p = end;
    return true;
}

bool parse_value(const char *&p, double &out)
{
    while (*p == ' ' || *p == '\t') ++p;
    char *end = nullptr;
    out = strtod(p, &end);
    if (end == p || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r')) return false;
    p = end;
    return true;
}

bool blank_rest(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') ++p;
    return *p == '\0';
}

status read_header(const char *who, const char *path, FILE *f, mm_header &h)
{
    char *line = nullptr;
    size_t cap = 0;
    status st = PGDDS_OK;
    char banner[32] = "", object[32] = "", format[32] = "", field[32] = "", symmetry[32] = "";
    if (getline(&line, &cap, f) < 0 ||
        sscanf(line, "%31s %31s %31s %31s %31s", banner, object, format, field, symmetry) != 5 ||
        strcmp(banner, "%%MatrixMarket") != 0) {
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: %s: line 1 is not a Matrix Market banner (%%%%MatrixMarket matrix "
                  "coordinate <field> <symmetry>)", who, path);
    } else if (strcasecmp(object, "matrix") != 0 || strcasecmp(format, "coordinate") != 0 ||
               !(strcasecmp(field, "real") == 0 || strcasecmp(field, "integer") == 0 || strcasecmp(field, "double") == 0 ||
                 strcasecmp(field, "pattern") == 0) ||
               !(strcasecmp(symmetry, "general") == 0 || strcasecmp(symmetry, "symmetric") == 0)) {
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: %s: reads \"matrix coordinate\" files of real, integer or pattern entries, "
                  "general or symmetric, not \"%s %s %s %s\"", who, path, object, format, field, symmetry);
    } else {
        h.pattern = strcasecmp(field, "pattern") == 0;
        h.symmetric = strcasecmp(symmetry, "symmetric") == 0;
        long lineno = 1;
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: %s: no size line", who, path);
        while (getline(&line, &cap, f) >= 0) {
            ++lineno;
            if (line[0] == '%' || blank_rest(line)) continue;
            const char *p = line;
            if (!parse_index(p, h.rows) || !parse_index(p, h.cols) || !parse_index(p, h.nnz) || !blank_rest(p))
                st = fail(PGDDS_ERR_INVALID_ARG, "%s: %s: line %ld: the size line is not \"rows cols entries\"", who, path,
                          lineno);
            else
                st = PGDDS_OK, h.data = ftell(f);
            break;
        }
    }
    free(line);
    return st;
}

// The entries whose lines start in [begin, end) of the file.
status read_share(const char *who, const char *path, FILE *f, const mm_header &h, long begin, long end,
                  pgdds_dtype_t t, size_t es, std::vector<uint64_t> &rows, std::vector<uint64_t> &cols,
                  std::vector<char> &vals, uint64_t &lines)
{
    // A line belongs to the share its first byte is in: skip the one begun before ours.
    if (begin > h.data) {
        fseek(f, begin - 1, SEEK_SET);
        int c = fgetc(f);
        if (c != '\n')
            while ((c = fgetc(f)) != EOF && c != '\n') {}
    } else {
        fseek(f, h.data, SEEK_SET);
    }
    char *line = nullptr;
    size_t cap = 0;
    status st = PGDDS_OK;
    const bool integer = t == PGDDS_INT32 || t == PGDDS_INT64;
    for (long at = ftell(f); at < end && getline(&line, &cap, f) >= 0; at = ftell(f)) {
        if (line[0] == '%' || blank_rest(line)) continue;
        const char *p = line;
        uint64_t i = 0, j = 0;
        double v = 1;
        if (!parse_index(p, i) || !parse_index(p, j) || (!h.pattern && !parse_value(p, v)) || !blank_rest(p)) {
            st = fail(PGDDS_ERR_INVALID_ARG, "%s: %s: byte %ld: the entry is not \"row column%s\"", who, path, at,
                      h.pattern ? "" : " value");
            break;
        }
        if (i < 1 || j < 1 || i > h.rows || j > h.cols) {
            st = fail(PGDDS_ERR_OUT_OF_BOUNDS, "%s: %s: byte %ld: entry (%" PRIu64 ", %" PRIu64 ") is outside the %" PRIu64
                      " x %" PRIu64 " matrix (indices count from 1)", who, path, at, i, j, h.rows, h.cols);
            break;
        }
        if (integer && !(std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9.2e18)) {
            st = fail(PGDDS_ERR_INVALID_ARG, "%s: %s: byte %ld: %g is not a whole number for an integer matrix", who, path,
                      at, v);
            break;
        }
        ++lines;
        for (int mirror = 0; mirror < (h.symmetric && i != j ? 2 : 1); ++mirror) {
            rows.push_back(mirror ? j - 1 : i - 1);
            cols.push_back(mirror ? i - 1 : j - 1);
            size_t at_v = vals.size();
            vals.resize(at_v + es);
            switch (t) {
            case PGDDS_FLOAT: { float x = float(v); memcpy(&vals[at_v], &x, es); break; }
            case PGDDS_DOUBLE: memcpy(&vals[at_v], &v, es); break;
            case PGDDS_INT32: { int32_t x = int32_t(v); memcpy(&vals[at_v], &x, es); break; }
            default: { int64_t x = int64_t(v); memcpy(&vals[at_v], &x, es); break; }
            }
        }
    }
    free(line);
    return st;
}

}  // namespace

status read_mm(runtime *rt, const char *who, const char *path, const pgdds_dmatrix_params_t &params, smatrix *&out)
{
    file f;
    mm_header h;
    status st = open_file(who, path, f);
    if (st == PGDDS_OK) st = read_header(who, path, f.f, h);
    if (st == PGDDS_OK && ((params.rows && params.rows != h.rows) || (params.cols && params.cols != h.cols)))
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: %s holds a %" PRIu64 " x %" PRIu64 " matrix, not %" PRIu64 " x %" PRIu64, who,
                  path, h.rows, h.cols, params.rows, params.cols);
    if (st == PGDDS_OK && (h.rows == 0 || h.cols == 0))
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: %s holds an empty %" PRIu64 " x %" PRIu64 " matrix", who, path, h.rows, h.cols);
    st = agree(rt, who, st);
    if (st != PGDDS_OK) return st;

    // This rank's share of the bytes after the size line.
    fseek(f.f, 0, SEEK_END);
    const long size = ftell(f.f), span = size - h.data, n = rt->nranks(), r = rt->rank();
    const long begin = h.data + span * r / n, end = h.data + span * (r + 1) / n;
    pgdds_dmatrix_params_t p = params;
    p.rows = h.rows;
    p.cols = h.cols;
    const int t = enum_value(p.dtype);
    const size_t es = t == PGDDS_FLOAT || t == PGDDS_INT32 ? 4 : 8;
    std::vector<uint64_t> rows, cols;
    std::vector<char> vals;
    uint64_t lines = 0, total = 0;
    if (t < PGDDS_INT32 || t > PGDDS_DOUBLE || t == PGDDS_UINT32 || t == PGDDS_UINT64)
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: dtype %d is not one of PGDDS_FLOAT, PGDDS_DOUBLE, PGDDS_INT32, PGDDS_INT64",
                  who, t);
    else
        st = read_share(who, path, f.f, h, begin, end, p.dtype, es, rows, cols, vals, lines);
    st = agree(rt, who, st);
    if (st == PGDDS_OK) st = rt->allreduce(who, &lines, &total, 1, PGDDS_UINT64, PGDDS_OP_SUM);
    if (st == PGDDS_OK && total != h.nnz)
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: %s holds %" PRIu64 " entries, but its size line says %" PRIu64, who, path,
                  total, h.nnz);
    if (st != PGDDS_OK) return st;
    return smatrix::create_coo(rt, who, p, rows.size(), rows.data(), cols.data(), vals.data(), out);
}

status write_mm(const smatrix &m, const char *who, const char *path)
{
    const layout &l = m.lay();
    const bool integer = l.dtype == PGDDS_INT32 || l.dtype == PGDDS_INT64;
    // This rank's entries, as text.
    std::string text;
    char buf[96];
    csr_tile copy;  // a tile in GPU memory, read into host memory
    status got = PGDDS_OK;
    for (uint64_t ti = 0; ti < l.tgrid_rows; ++ti)
        for (uint64_t tj = 0; tj < l.tgrid_cols && got == PGDDS_OK; ++tj) {
            if (!m.mine(ti, tj)) continue;
            const smatrix::tile_entry &t = m.tile(ti, tj);
            const uint64_t *off = static_cast<const uint64_t *>(pgdds_gptr_to_local(m.ctx, t.offsets));
            const uint64_t *idx = static_cast<const uint64_t *>(pgdds_gptr_to_local(m.ctx, t.indices));
            const char *val = static_cast<const char *>(pgdds_gptr_to_local(m.ctx, t.values));
            if (l.memory != PGDDS_MEMORY_HOST) {
                got = m.fetch_tile(who, ti, tj, copy);
                if (got != PGDDS_OK) break;
                off = copy.offsets.data(), idx = copy.indices.data(), val = copy.values.data();
            }
            for (uint64_t r = 0; r < l.tile_rows_of(ti); ++r)
                for (uint64_t e = off[r]; e < off[r + 1]; ++e) {
                    const uint64_t i = ti * l.tile_rows + r + 1, j = tj * l.tile_cols + idx[e] + 1;
                    const char *v = val + e * l.esize;
                    switch (l.dtype) {
                    case PGDDS_FLOAT: { float x; memcpy(&x, v, 4); snprintf(buf, sizeof buf, "%" PRIu64 " %" PRIu64 " %.9g\n", i, j, double(x)); break; }
                    case PGDDS_DOUBLE: { double x; memcpy(&x, v, 8); snprintf(buf, sizeof buf, "%" PRIu64 " %" PRIu64 " %.17g\n", i, j, x); break; }
                    case PGDDS_INT32: { int32_t x; memcpy(&x, v, 4); snprintf(buf, sizeof buf, "%" PRIu64 " %" PRIu64 " %" PRId32 "\n", i, j, x); break; }
                    default: { int64_t x; memcpy(&x, v, 8); snprintf(buf, sizeof buf, "%" PRIu64 " %" PRIu64 " %" PRId64 "\n", i, j, x); break; }
                    }
                    text += buf;
                }
        }
    got = agree(m.rt, who, got);
    if (got != PGDDS_OK) return got;
    char header[160];
    snprintf(header, sizeof header, "%%%%MatrixMarket matrix coordinate %s general\n%" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
             integer ? "integer" : "real", l.rows, l.cols, m.nnz());
    const int n = m.rt->nranks(), me = m.rank();
    uint64_t mine = text.size();
    std::vector<uint64_t> sizes(static_cast<size_t>(n));
    status st = pgdds_allgather(m.ctx, &mine, sizes.data(), sizeof mine);
    if (st != PGDDS_OK) return fail_prefix(st, who);
    uint64_t at = strlen(header);
    for (int r = 0; r < me; ++r) at += sizes[size_t(r)];

    // Rank 0 creates the file and writes the header; then every rank writes its part.
    auto write_at = [&](int fd, const char *data, uint64_t len, uint64_t offset) {
        while (len) {
            ssize_t w = pwrite(fd, data, len, off_t(offset));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) return fail(PGDDS_ERR_INVALID_ARG, "%s: cannot write %s: %s", who, path, strerror(errno));
            data += w, len -= uint64_t(w), offset += uint64_t(w);
        }
        return PGDDS_OK;
    };
    if (me == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        st = fd < 0 ? fail(PGDDS_ERR_INVALID_ARG, "%s: cannot create %s: %s", who, path, strerror(errno))
                    : write_at(fd, header, strlen(header), 0);
        if (fd >= 0) close(fd);
    }
    st = agree(m.rt, who, st);
    if (st != PGDDS_OK) return st;
    int fd = open(path, O_WRONLY);
    st = fd < 0 ? fail(PGDDS_ERR_INVALID_ARG, "%s: cannot open %s: %s", who, path, strerror(errno))
                : write_at(fd, text.data(), text.size(), at);
    if (fd >= 0 && close(fd) != 0 && st == PGDDS_OK)
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: cannot write %s: %s", who, path, strerror(errno));
    return agree(m.rt, who, st);
}

}  // namespace pgdds::matrix
