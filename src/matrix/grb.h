// The GraphBLAS face of the sparse matrices' element types (SuiteSparse:GraphBLAS): types,
// plus-times semirings, CSR import and export, and starting the library once per process.
#pragma once

#include "smatrix.h"

extern "C" {
#include <GraphBLAS.h>
}

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace pgdds::matrix {

// The GraphBLAS face of each element type.
template <class T> struct grb;
template <> struct grb<float> {
    static constexpr pgdds_dtype_t dtype = PGDDS_FLOAT;
    static GrB_Type type() { return GrB_FP32; }
    static GrB_Semiring semiring() { return GrB_PLUS_TIMES_SEMIRING_FP32; }
    static GrB_BinaryOp plus() { return GrB_PLUS_FP32; }
    static GrB_Info import_(GrB_Matrix *m, GrB_Index r, GrB_Index c, const GrB_Index *p, const GrB_Index *i,
                            const float *x, GrB_Index pl, GrB_Index il, GrB_Index xl)
    {
        return GrB_Matrix_import_FP32(m, GrB_FP32, r, c, p, i, x, pl, il, xl, GrB_CSR_FORMAT);
    }
    static GrB_Info export_(GrB_Index *p, GrB_Index *i, float *x, GrB_Index *pl, GrB_Index *il, GrB_Index *xl, GrB_Matrix m)
    {
        return GrB_Matrix_export_FP32(p, i, x, pl, il, xl, GrB_CSR_FORMAT, m);
    }
};
template <> struct grb<double> {
    static constexpr pgdds_dtype_t dtype = PGDDS_DOUBLE;
    static GrB_Type type() { return GrB_FP64; }
    static GrB_Semiring semiring() { return GrB_PLUS_TIMES_SEMIRING_FP64; }
    static GrB_BinaryOp plus() { return GrB_PLUS_FP64; }
    static GrB_Info import_(GrB_Matrix *m, GrB_Index r, GrB_Index c, const GrB_Index *p, const GrB_Index *i,
                            const double *x, GrB_Index pl, GrB_Index il, GrB_Index xl)
    {
        return GrB_Matrix_import_FP64(m, GrB_FP64, r, c, p, i, x, pl, il, xl, GrB_CSR_FORMAT);
    }
    static GrB_Info export_(GrB_Index *p, GrB_Index *i, double *x, GrB_Index *pl, GrB_Index *il, GrB_Index *xl, GrB_Matrix m)
    {
        return GrB_Matrix_export_FP64(p, i, x, pl, il, xl, GrB_CSR_FORMAT, m);
    }
};
template <> struct grb<int32_t> {
    static constexpr pgdds_dtype_t dtype = PGDDS_INT32;
    static GrB_Type type() { return GrB_INT32; }
    static GrB_Semiring semiring() { return GrB_PLUS_TIMES_SEMIRING_INT32; }
    static GrB_BinaryOp plus() { return GrB_PLUS_INT32; }
    static GrB_Info import_(GrB_Matrix *m, GrB_Index r, GrB_Index c, const GrB_Index *p, const GrB_Index *i,
                            const int32_t *x, GrB_Index pl, GrB_Index il, GrB_Index xl)
    {
        return GrB_Matrix_import_INT32(m, GrB_INT32, r, c, p, i, x, pl, il, xl, GrB_CSR_FORMAT);
    }
    static GrB_Info export_(GrB_Index *p, GrB_Index *i, int32_t *x, GrB_Index *pl, GrB_Index *il, GrB_Index *xl,
                            GrB_Matrix m)
    {
        return GrB_Matrix_export_INT32(p, i, x, pl, il, xl, GrB_CSR_FORMAT, m);
    }
};
template <> struct grb<int64_t> {
    static constexpr pgdds_dtype_t dtype = PGDDS_INT64;
    static GrB_Type type() { return GrB_INT64; }
    static GrB_Semiring semiring() { return GrB_PLUS_TIMES_SEMIRING_INT64; }
    static GrB_BinaryOp plus() { return GrB_PLUS_INT64; }
    static GrB_Info import_(GrB_Matrix *m, GrB_Index r, GrB_Index c, const GrB_Index *p, const GrB_Index *i,
                            const int64_t *x, GrB_Index pl, GrB_Index il, GrB_Index xl)
    {
        return GrB_Matrix_import_INT64(m, GrB_INT64, r, c, p, i, x, pl, il, xl, GrB_CSR_FORMAT);
    }
    static GrB_Info export_(GrB_Index *p, GrB_Index *i, int64_t *x, GrB_Index *pl, GrB_Index *il, GrB_Index *xl,
                            GrB_Matrix m)
    {
        return GrB_Matrix_export_INT64(p, i, x, pl, il, xl, GrB_CSR_FORMAT, m);
    }
};

// Whether this library started GraphBLAS (grb_start), so that it frees memory with free(): a
// program that started it itself may have given it another allocator (GxB_init).
inline bool &grb_started_here()
{
    static bool here = false;
    return here;
}

// CSR arrays of a rows-high matrix with nnz entries, malloc'ed for GraphBLAS to take over
// (pack: GxB_Matrix_pack_CSR, which takes them as they are, where grb_started_here); freed here
// unless it did.
template <class T> struct packed_csr {
    GrB_Index *p, *i;
    T *x;
    size_t pb, ib, xb;
    packed_csr(uint64_t rows, uint64_t nnz)
        : pb((rows + 1) * 8), ib(std::max<uint64_t>(nnz, 1) * 8), xb(std::max<uint64_t>(nnz, 1) * sizeof(T))
    {
        p = static_cast<GrB_Index *>(malloc(pb)), i = static_cast<GrB_Index *>(malloc(ib)), x = static_cast<T *>(malloc(xb));
    }
    packed_csr(const packed_csr &) = delete;
    packed_csr &operator=(const packed_csr &) = delete;
    ~packed_csr() { free(p), free(i), free(x); }
    bool ok() const { return p && i && x; }
    // m, a new rows x cols matrix holding the arrays.
    GrB_Info pack(GrB_Matrix &m, uint64_t rows, uint64_t cols)
    {
        GrB_Info info = GrB_Matrix_new(&m, grb<T>::type(), rows, cols);
        void *xv = x;
        if (info == GrB_SUCCESS) info = GxB_Matrix_pack_CSR(m, &p, &i, &xv, pb, ib, xb, false, false, nullptr);
        x = static_cast<T *>(xv);  // NULL once taken over
        return info;
    }
};

// A new GraphBLAS matrix holding a copy of tile t (rows x cols). Where GraphBLAS frees with
// free(), the copy is handed over packed (packed_csr): GrB_Matrix_import copies the arrays and
// then checks every row's indices, an O(nnz) pass that took 15% of an SpGEMM; CSR tiles are
// valid by construction (indices increasing within each row).
template <class T> GrB_Info import_tile(GrB_Matrix *m, uint64_t rows, uint64_t cols, const csr_tile &t)
{
    if (!grb_started_here())
        return grb<T>::import_(m, rows, cols, t.offsets.data(), t.indices.data(),
                               reinterpret_cast<const T *>(t.values.data()), rows + 1, t.nnz(), t.nnz());
    packed_csr<T> c(rows, t.nnz());
    if (!c.ok()) return GrB_OUT_OF_MEMORY;
    memcpy(c.p, t.offsets.data(), (rows + 1) * 8);
    if (t.nnz()) memcpy(c.i, t.indices.data(), t.nnz() * 8), memcpy(c.x, t.values.data(), t.nnz() * sizeof(T));
    return c.pack(*m, rows, cols);
}

// m (rows high) as a CSR tile, sized to fit; m is freed.
template <class T> GrB_Info export_tile(GrB_Matrix &m, uint64_t rows, csr_tile &t)
{
    GrB_Index n = 0;
    GrB_Info info = GrB_Matrix_nvals(&n, m);
    t.offsets.assign(rows + 1, 0);
    t.indices.resize(n);
    t.values.resize(n * sizeof(T));
    GrB_Index pl = rows + 1, il = n, xl = n;
    if (info == GrB_SUCCESS)
        info = grb<T>::export_(t.offsets.data(), t.indices.data(), reinterpret_cast<T *>(t.values.data()), &pl, &il, &xl, m);
    GrB_Matrix_free(&m);
    return info;
}

inline status grb_failed(const char *who, const char *what, GrB_Info info)
{
    return fail(info == GrB_OUT_OF_MEMORY ? PGDDS_ERR_NO_MEMORY : PGDDS_ERR_INVALID_ARG, "%s: GraphBLAS %s failed (GrB_Info %d)",
                who, what, int(info));
}

// GraphBLAS starts once per process; a program that started it itself is fine.
inline status grb_start(const char *who)
{
    static std::once_flag once;
    static GrB_Info info = GrB_SUCCESS;
    std::call_once(once, [] {
        info = GrB_init(GrB_NONBLOCKING);
        grb_started_here() = info == GrB_SUCCESS;
        if (info == GrB_INVALID_VALUE) info = GrB_SUCCESS;  // already started
    });
    return info == GrB_SUCCESS ? PGDDS_OK : grb_failed(who, "GrB_init", info);
}

}  // namespace pgdds::matrix
