//! winterp-hostwin32: the Win32 process (PE loader, threads, HLE DLLs). Arrives with issue 3.
