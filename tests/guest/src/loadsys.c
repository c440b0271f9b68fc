/*
 * loadsys: LoadLibrary finds a DLL the way Windows searches for it when it is
 * not beside the program: a bare name in the system folder, and a name with a
 * path as that file. (Wine's uninstaller runs appwiz.cpl from the system folder
 * through Control_RunDLL.)
 * The program copies bin/cpltest.cpl (a DLL, beside it) into the system folder as
 * loadsys_t.dll, loads it by bare name and by full path (the same module), reads
 * its file name back, frees it and deletes the copy; then a name found nowhere
 * fails with ERROR_MOD_NOT_FOUND.
 */
#include <windows.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    char sys[MAX_PATH], copy[MAX_PATH], got[MAX_PATH], self[MAX_PATH];
    GetSystemDirectoryA(sys, sizeof sys);
    GetModuleFileNameA(NULL, self, sizeof self);
    strcpy(strrchr(self, '\\') + 1, "cpltest.cpl");
    snprintf(copy, sizeof copy, "%s\\loadsys_t.dll", sys);
    printf("copied into the system folder: %d\n", CopyFileA(self, copy, FALSE) != 0);
    HMODULE bare = LoadLibraryA("loadsys_t.dll");
    printf("bare name loads: %d\n", bare != NULL);
    HMODULE full = LoadLibraryA(copy);
    printf("full path loads the same module: %d\n", full != NULL && full == bare);
    GetModuleFileNameA(bare, got, sizeof got);
    printf("its file name is the system folder's copy: %d\n", lstrcmpiA(got, copy) == 0);
    printf("exports CPlApplet: %d\n", GetProcAddress(bare, "CPlApplet") != NULL);
    FreeLibrary(full);
    FreeLibrary(bare);
    printf("deleted after FreeLibrary: %d\n", DeleteFileA(copy) != 0);
    SetLastError(0);
    HMODULE none = LoadLibraryA("loadsys_nowhere.dll");
    printf("missing: %p, error %lu\n", (void *)none, GetLastError());
    return 0;
}
