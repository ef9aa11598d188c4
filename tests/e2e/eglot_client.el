;;; eglot_client.el --- a third real client for `cudnnlint server': Emacs's eglot, in batch -*- lexical-binding: t -*-
;;
;; Run by tests/e2e/test_server_eglot.py, after the README's eglot snippet, as
;;   emacs --batch -q -l SNIPPET.el -l tests/e2e/eglot_client.el
;; in a folder holding model.py, with CUDNNLINT_OUT (a file for what it saw) in the environment.
;; It opens model.py, connects the server the snippet names, records the diagnostics flymake
;; shows, asks for a hover on the first one, edits the line through the buffer (eglot sends an
;; incremental didChange), waits for the diagnostics to clear, and shuts the server down. It exits
;; with status 0 when every step happened, 1 otherwise; the test reads CUDNNLINT_OUT either way.
;; Written for Debian 12's Emacs 28 and elpa-eglot 1.9. A batch Emacs runs no command loop, so
;; what its timers would do (flymake's start, eglot's debounced didChange) is called here.

(package-initialize)  ; Debian's elpa-eglot, as an interactive Emacs activates it
(require 'eglot)
(require 'flymake)

(defvar cudnnlint-seen nil)
(defun cudnnlint-say (format-string &rest args)
  (push (apply #'format format-string args) cudnnlint-seen))
(defun cudnnlint-finish (ok)
  (with-temp-file (getenv "CUDNNLINT_OUT")
    (insert (mapconcat #'identity (reverse cudnnlint-seen) "\n") "\n"))
  (kill-emacs (if ok 0 1)))
(defun cudnnlint-wait (predicate seconds)
  "Let the server's messages in until PREDICATE holds or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.02)
      (flymake-start))
    (funcall predicate)))

(condition-case err
    (progn
      (find-file "model.py")
      (apply #'eglot (eglot--guess-contact))
      (let ((server (eglot-current-server)))
        (unless server (cudnnlint-say "error: no server") (cudnnlint-finish nil))
        ;; 1. The diagnostics of the opened file.
        (unless (cudnnlint-wait #'flymake-diagnostics 60)
          (cudnnlint-say "error: no diagnostics within 60 s")
          (cudnnlint-finish nil))
        (let ((first (car (flymake-diagnostics))))
          (dolist (d (flymake-diagnostics))
            (let ((lsp (alist-get 'eglot-lsp-diag (flymake-diagnostic-data d))))
              (save-excursion
                (goto-char (flymake-diagnostic-beg d))
                (cudnnlint-say "diagnostic %d:%d %s %s" (1- (line-number-at-pos)) (current-column)
                               (plist-get lsp :code) (plist-get lsp :message)))))
          ;; 2. A hover where it points.
          (goto-char (flymake-diagnostic-beg first))
          (let ((hover (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams))))
            (cudnnlint-say "hover %s" (car (split-string (plist-get (plist-get hover :contents) :value) "\n"))))
          ;; 3. The fix typed into the buffer: the diagnostic goes.
          (goto-char (flymake-diagnostic-beg first))
          (delete-char 1)
          (insert "1e-5")
          (eglot--signal-textDocument/didChange)
          (if (cudnnlint-wait (lambda () (null (flymake-diagnostics))) 60)
              (cudnnlint-say "cleared")
            (cudnnlint-say "error: the diagnostic stayed")
            (cudnnlint-finish nil)))
        ;; 4. shutdown and exit.
        (eglot-shutdown server)
        (cudnnlint-say "stopped")
        (set-buffer-modified-p nil)
        (cudnnlint-finish t)))
  (error (cudnnlint-say "error: %S" err) (cudnnlint-finish nil)))
