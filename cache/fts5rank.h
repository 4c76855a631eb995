/*
** The parts of SQLite's FTS5 extension API that fts5rank.c uses, copied
** from sqlite3.h (public domain). The struct layouts are SQLite's stable,
** versioned ABI; only members up to the ones used are declared, in order.
*/
#ifndef CONTEXTFS_FTS5RANK_H
#define CONTEXTFS_FTS5RANK_H

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct sqlite3_value sqlite3_value;
typedef struct sqlite3_context sqlite3_context;
typedef long long sqlite3_int64;

typedef struct Fts5ExtensionApi Fts5ExtensionApi;
typedef struct Fts5Context Fts5Context;
typedef struct Fts5PhraseIter Fts5PhraseIter;

typedef void (*fts5_extension_function)(
  const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx,
  int nVal, sqlite3_value **apVal);

struct Fts5PhraseIter {
  const unsigned char *a;
  const unsigned char *b;
};

struct Fts5ExtensionApi {
  int iVersion;
  void *(*xUserData)(Fts5Context*);
  int (*xColumnCount)(Fts5Context*);
  int (*xRowCount)(Fts5Context*, sqlite3_int64 *pnRow);
  int (*xColumnTotalSize)(Fts5Context*, int iCol, sqlite3_int64 *pnToken);
  int (*xTokenize)(Fts5Context*, const char *pText, int nText, void *pCtx,
    int (*xToken)(void*, int, const char*, int, int, int));
  int (*xPhraseCount)(Fts5Context*);
  int (*xPhraseSize)(Fts5Context*, int iPhrase);
  int (*xInstCount)(Fts5Context*, int *pnInst);
  int (*xInst)(Fts5Context*, int iIdx, int *piPhrase, int *piCol, int *piOff);
  sqlite3_int64 (*xRowid)(Fts5Context*);
  int (*xColumnText)(Fts5Context*, int iCol, const char **pz, int *pn);
  int (*xColumnSize)(Fts5Context*, int iCol, int *pnToken);
  int (*xQueryPhrase)(Fts5Context*, int iPhrase, void *pUserData,
    int(*)(const Fts5ExtensionApi*, Fts5Context*, void*));
  int (*xSetAuxdata)(Fts5Context*, void *pAux, void(*xDelete)(void*));
  void *(*xGetAuxdata)(Fts5Context*, int bClear);
  int (*xPhraseFirst)(Fts5Context*, int iPhrase, Fts5PhraseIter*, int*, int*);
  void (*xPhraseNext)(Fts5Context*, Fts5PhraseIter*, int *piCol, int *piOff);
};

typedef struct fts5_api fts5_api;
struct fts5_api {
  int iVersion;
  int (*xCreateTokenizer)(fts5_api*, const char*, void*, void*, void (*)(void*));
  int (*xFindTokenizer)(fts5_api*, const char*, void**, void*);
  int (*xCreateFunction)(fts5_api*, const char *zName, void *pUserData,
    fts5_extension_function xFunction, void (*xDestroy)(void*));
};

#define CFS_SQLITE_OK 0
#define CFS_SQLITE_ERROR 1
#define CFS_SQLITE_NOMEM 7
#define CFS_SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE 1006

/* Defined in fts5rank.c, called from Go. */
int cfs_register(void);
long long cfs_docs_new(const long long *rows, const unsigned int *lens, long long n, double avgdl);
void cfs_docs_release(long long id);
int cfs_docs_indexed(long long id);

#endif
