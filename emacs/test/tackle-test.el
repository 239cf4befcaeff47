;;; tackle-test.el --- ERT tests for tackle.el against a real tackle serve  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run from the repository root after `npm run build':
;;   emacs --batch -L emacs -l emacs/test/tackle-test.el -f ert-run-tests-batch-and-exit
;; Every test starts a real `tackle serve' on 127.0.0.1 in a temporary workspace and stops it.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'text-property-search)
(require 'tackle)

(defconst tackle-test--root
  (expand-file-name "../.." (file-name-directory (or load-file-name buffer-file-name))))

(defconst tackle-test--main (expand-file-name "dist/cli/main.cjs" tackle-test--root))

(defvar tackle-test--timeout 120 "Seconds any wait may take; generous, for a loaded machine.")

(defun tackle-test--wait (predicate what)
  "Wait until PREDICATE returns non-nil, or fail saying WHAT did not happen."
  (let ((deadline (+ (float-time) tackle-test--timeout))
        value)
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless value (ert-fail (format "timed out waiting for %s" what)))
    value))

(defun tackle-test--workspace ()
  (let ((dir (file-name-as-directory (make-temp-file "tackle-emacs-" t))))
    (with-temp-file (expand-file-name "a.txt" dir) (insert "alpha\n"))
    ;; These tests replace files to be asked about; the agent never read them first.
    (with-temp-file (expand-file-name "tackle.config.json" dir)
      (insert "{\"staleEditGuard\": false}\n"))
    dir))

(defmacro tackle-test--with-server (args &rest body)
  "Run BODY with `dir' bound to a workspace served by `tackle serve' ARGS."
  (declare (indent 1))
  `(let* ((dir (tackle-test--workspace))
          (tackle-program (list "node" tackle-test--main))
          (tackle-serve-arguments ,args)
          (tackle-announce-approvals t))
     (unwind-protect
         (progn
           (tackle-start dir)
           (should (tackle-wait-until-connected tackle-test--timeout))
           ,@body)
       (tackle-stop)
       (delete-directory dir t))))

(defun tackle-test--call-async (tool args)
  "Start TOOL with ARGS without waiting; return a cons whose cdr receives the outcome."
  (let ((box (cons 'pending nil)))
    (tackle--request "POST" "/api/calls" `((name . ,tool) (args . ,args))
                     (lambda (_status data) (setcar box 'done) (setcdr box data)))
    box))

(defun tackle-test--outcome (box)
  (tackle-test--wait (lambda () (eq (car box) 'done)) "the call's outcome")
  (cdr box))

(defun tackle-test--overwrite (content)
  "Overwrite a.txt with CONTENT (asks for approval) and wait until the request is pending."
  (let ((box (tackle-test--call-async "write_file" `((path . "a.txt") (content . ,content)))))
    (tackle-test--wait (lambda () tackle--pending) "an approval request")
    box))

(defun tackle-test--file (dir)
  (with-temp-buffer (insert-file-contents (expand-file-name "a.txt" dir)) (buffer-string)))

(defun tackle-test--goto-first-approval ()
  (set-buffer (get-buffer "*tackle-approvals*"))
  (goto-char (point-min))
  (should (get-text-property (point) 'tackle-approval)))

(ert-deftest tackle-approve-writes-the-file ()
  (tackle-test--with-server nil
    (let ((box (tackle-test--overwrite "approved\n")))
      (let ((listed (tackle-pending)))
        (should (= (length listed) 1))
        (should (equal (alist-get 'tool (car listed)) "write_file"))
        (should (equal (alist-get 'path (alist-get 'args (car listed))) "a.txt"))
        (should (stringp (alist-get 'toolCallId (car listed)))))
      (tackle-approvals)
      (tackle-test--goto-first-approval)
      (should (string-match-p "write_file" (buffer-string)))
      ;; the diff preview is shown with diff-mode's faces
      (should (text-property-search-forward 'font-lock-face nil (lambda (_ face) (memq 'diff-added (ensure-list face)))))
      (should (string-match-p "tackle:.*\\[1\\]" (tackle--mode-line)))
      (goto-char (point-min))
      (tackle-approvals-approve)
      (should (equal (alist-get 'status (tackle-test--outcome box)) "success"))
      (should (equal (tackle-test--file dir) "approved\n"))
      (tackle-test--wait (lambda () (null tackle--pending)) "the approval to leave the list"))))

(ert-deftest tackle-reject-with-a-message-reaches-the-model ()
  (tackle-test--with-server nil
    (let* ((box (tackle-test--overwrite "rejected\n"))
           (id (alist-get 'toolCallId (car tackle--pending))))
      (tackle-reject id "wrong file, use b.txt")
      (let ((outcome (tackle-test--outcome box)))
        (should (equal (alist-get 'status outcome) "rejected"))
        (should (string-match-p "wrong file, use b.txt" (alist-get 'content outcome))))
      (should (equal (tackle-test--file dir) "alpha\n")))))

(ert-deftest tackle-edit-the-arguments-then-approve ()
  (tackle-test--with-server nil
    (let ((box (tackle-test--overwrite "as asked\n")))
      (tackle-approvals)
      (tackle-test--goto-first-approval)
      (set-buffer (tackle-approvals-edit))
      (should tackle--editing)
      (erase-buffer)
      (insert "{\"path\": \"a.txt\", \"content\": \"as edited\\n\"}")
      (tackle-edit-args-approve)
      (should (equal (alist-get 'status (tackle-test--outcome box)) "success"))
      (should (equal (tackle-test--file dir) "as edited\n")))))

(ert-deftest tackle-a-reload-of-the-approvals-does-not-undo-newer-events ()
  ;; The answer to a reload can be made before an event that arrives first (a loaded machine):
  ;; what the events said since the reload was sent must survive it.
  (tackle-test--with-server nil
    (let ((box (tackle-test--overwrite "asked\n"))
          (stale '((toolCallId . "made-up") (tool . "write_file") (reason . "test"))))
      (let ((real (tackle--request-id (car tackle--pending))))
        (tackle-refresh)
        ;; Before the reload's answer is read: one request arrives, the real one is answered elsewhere.
        (tackle--handle-event "approval.requested" stale)
        (tackle--handle-event "approval.resolved" `((id . ,real)))
        (tackle-test--wait (lambda () (null tackle--approval-logs)) "the reload's answer")
        (should (equal (mapcar (lambda (r) (alist-get 'toolCallId r)) tackle--pending) '("made-up")))
        ;; Let the real call finish, so the server stops cleanly.
        (tackle-approve real)
        (should (equal (alist-get 'status (tackle-test--outcome box)) "success"))))))

(ert-deftest tackle-always-approves-later-calls ()
  (tackle-test--with-server nil
    (let ((box (tackle-test--overwrite "first\n")))
      (tackle-approvals)
      (tackle-test--goto-first-approval)
      (tackle-approvals-always)
      (should (equal (alist-get 'status (tackle-test--outcome box)) "success"))
      ;; the same kind of call now runs without asking
      (let ((outcome (tackle-call-sync "write_file" '((path . "a.txt") (content . "second\n")))))
        (should (equal (alist-get 'status outcome) "success")))
      (should (equal (tackle-test--file dir) "second\n")))))

(ert-deftest tackle-file-changed-reverts-unmodified-buffers-only ()
  (tackle-test--with-server nil
    (with-temp-file (expand-file-name "b.txt" dir) (insert "bravo\n"))
    (let ((clean (find-file-noselect (expand-file-name "a.txt" dir)))
          (dirty (find-file-noselect (expand-file-name "b.txt" dir))))
      (unwind-protect
          (progn
            (with-current-buffer dirty (goto-char (point-max)) (insert "unsaved\n"))
            (let ((box (tackle-test--overwrite "from the agent\n")))
              (tackle-approve (alist-get 'toolCallId (car tackle--pending)))
              (tackle-test--outcome box))
            (tackle-test--wait (lambda () (with-current-buffer clean (equal (buffer-string) "from the agent\n")))
                               "the visiting buffer to be reverted")
            (let ((box (tackle-test--call-async "write_file" '((path . "b.txt") (content . "agent's b\n")))))
              (tackle-test--wait (lambda () tackle--pending) "the second approval")
              (emacs-agent-api-approve (car tackle--pending))
              (tackle-test--outcome box))
            (tackle-test--wait (lambda ()
                                 (with-current-buffer "*tackle-events*"
                                   (string-match-p "modified b.txt" (buffer-string))))
                               "the file.changed event for b.txt")
            (with-current-buffer dirty
              (should (buffer-modified-p))
              (should (equal (buffer-string) "bravo\nunsaved\n"))))
        (with-current-buffer dirty (set-buffer-modified-p nil))
        (kill-buffer clean)
        (kill-buffer dirty)))))

(ert-deftest tackle-events-buffer-shows-events-and-stays-bounded ()
  (tackle-test--with-server nil
    (let ((tackle-events-max-lines 5))
      (dotimes (_ 6) (tackle-call-sync "read_file" '((path . "a.txt"))))
      (tackle-test--wait (lambda () (get-buffer "*tackle-events*")) "the events buffer")
      (with-current-buffer "*tackle-events*"
        (tackle-test--wait (lambda () (string-match-p "tool.result" (buffer-string))) "a tool.result line")
        (should (<= (count-lines (point-min) (point-max)) 5))
        (goto-char (point-min))
        (should (get-text-property (point) 'tackle-event))))))

(ert-deftest tackle-call-sync-carries-context-and-returns-the-outcome ()
  (tackle-test--with-server nil
    (let ((outcome (tackle-call-sync "read_file" '((path . "a.txt")))))
      (should (equal (alist-get 'status outcome) "success"))
      (should (string-match-p "alpha" (alist-get 'content outcome))))
    (let ((box (let ((b (cons 'pending nil)))
                 (tackle--request "POST" "/api/calls"
                                  '((name . "write_file") (args . ((path . "a.txt") (content . "x\n")))
                                    (context . "Fixing authentication bug"))
                                  (lambda (_s data) (setcar b 'done) (setcdr b data)))
                 b)))
      (tackle-test--wait (lambda () tackle--pending) "an approval request")
      (should (equal (alist-get 'context (car (tackle-pending))) "Fixing authentication bug"))
      (emacs-agent-api-reject (alist-get 'toolCallId (car tackle--pending)) "no")
      (should (equal (alist-get 'status (tackle-test--outcome box)) "rejected")))))

(defun tackle-test--free-port ()
  (let* ((server (make-network-process :name "tackle-test-port" :server t :host "127.0.0.1" :service t))
         (port (process-contact server :service)))
    (delete-process server)
    port))

(defun tackle-test--serve-process (dir port &rest args)
  "Start `tackle serve' on PORT for DIR outside `tackle-start'; return the process."
  (let ((process (make-process :name "tackle-test-serve" :buffer (generate-new-buffer " *tackle-test-serve*")
                               :command (append (list "node" tackle-test--main "serve" "--port" (number-to-string port)
                                                      "--workspace" dir)
                                                args)
                               :noquery t)))
    (tackle-test--wait (lambda () (with-current-buffer (process-buffer process)
                                    (string-match-p "serving on" (buffer-string))))
                       "tackle serve to print its address")
    process))

(defun tackle-test--end (process)
  (when (process-live-p process) (tackle--kill-server process))
  (when (buffer-live-p (process-buffer process)) (kill-buffer (process-buffer process))))

(ert-deftest tackle-reconnects-after-the-server-restarts ()
  (let* ((dir (tackle-test--workspace))
         (port (tackle-test--free-port))
         (tackle-reconnect-delay 0.2)
         (first (tackle-test--serve-process dir port))
         second)
    (unwind-protect
        (progn
          (let ((default-directory dir)) (tackle-connect (format "http://127.0.0.1:%d" port)))
          (should (tackle-wait-until-connected tackle-test--timeout))
          (tackle-test--end first)
          (tackle-test--wait (lambda () (not (tackle-connected-p))) "the stream to notice the server went away")
          (setq second (tackle-test--serve-process dir port))
          (tackle-test--wait #'tackle-connected-p "the stream to reconnect")
          (let ((box (tackle-test--overwrite "after restart\n")))
            (tackle-approve (alist-get 'toolCallId (car tackle--pending)))
            (should (equal (alist-get 'status (tackle-test--outcome box)) "success"))))
      (tackle-stop)
      (tackle-test--end first)
      (when second (tackle-test--end second))
      (delete-directory dir t))))

(ert-deftest tackle-token-is-sent-and-required ()
  (let* ((dir (tackle-test--workspace))
         (port (tackle-test--free-port))
         (server (tackle-test--serve-process dir port "--token" "s3cret-token")))
    (unwind-protect
        (progn
          (tackle-connect (format "http://127.0.0.1:%d" port) "wrong-token")
          (should-error (tackle-pending) :type 'tackle-error)
          (tackle-connect (format "http://127.0.0.1:%d" port) "s3cret-token")
          (should (tackle-wait-until-connected tackle-test--timeout))
          (should (equal (tackle-pending) nil))
          ;; The dashboard's address carries it too, and without one the server's token file gives it.
          (tackle-connect (format "http://127.0.0.1:%d/?token=s3cret-token" port))
          (should (equal tackle--url (format "http://127.0.0.1:%d" port)))
          (should (tackle-wait-until-connected tackle-test--timeout))
          (tackle-connect (format "http://127.0.0.1:%d" port))
          (should (equal tackle--token "s3cret-token"))
          (should (tackle-wait-until-connected tackle-test--timeout))
          (should (equal (tackle-pending) nil))
          (should (equal (alist-get 'status (tackle-call-sync "read_file" '((path . "a.txt"))))
                         "success")))
      (tackle-stop)
      (tackle-test--end server)
      (delete-directory dir t))))

(ert-deftest tackle-connect-takes-the-workspace-from-the-server ()
  (let* ((dir (tackle-test--workspace))
         (port (tackle-test--free-port))
         (server (tackle-test--serve-process dir port)))
    (unwind-protect
        (progn
          (setq tackle--root nil)
          (let ((default-directory temporary-file-directory))
            (tackle-connect (format "http://127.0.0.1:%d" port)))
          (should (tackle-wait-until-connected tackle-test--timeout))
          (tackle-test--wait (lambda () (equal (file-truename tackle--root) (file-truename dir)))
                             "the workspace from the server"))
      (tackle-stop)
      (tackle-test--end server)
      (delete-directory dir t))))

(ert-deftest tackle-spec-002-names-and-keys ()
  (tackle-test--with-server nil
    (should (eq (lookup-key tackle-approvals-mode-map "y") #'tackle-approvals-approve))
    (should (eq (lookup-key tackle-approvals-mode-map "n") #'tackle-approvals-reject))
    (should (eq (lookup-key tackle-approvals-mode-map "a") #'tackle-approvals-approve))
    (let* ((box (tackle-test--overwrite "by y\n"))
           (id (alist-get 'toolCallId (car tackle--pending))))
      (emacs-agent-approve-tool id)
      (should (equal (buffer-name) "*tackle-approvals*"))
      (should (equal (alist-get 'toolCallId (tackle--request-by-id (tackle--approval-at-point))) id))
      (execute-kbd-macro "y")
      (should (equal (alist-get 'status (tackle-test--outcome box)) "success")))
    (emacs-agent-show-tool-help "write_file")
    (with-current-buffer "*tackle-tool-help*"
      (should (string-match-p "path" (buffer-string))))
    (emacs-agent-config-auto-approve "write_file")
    (let ((box (tackle-test--call-async "write_file" '((path . "a.txt") (content . "no question\n")))))
      (should (equal (alist-get 'status (tackle-test--outcome box)) "success"))
      (should (equal (tackle-test--file dir) "no question\n")))))

(defun tackle-test--pids-serving (dir)
  "Process ids whose command line names DIR."
  (cl-remove-if-not
   (lambda (pid)
     (let ((args (alist-get 'args (process-attributes pid))))
       (and args (string-match-p (regexp-quote (directory-file-name dir)) args))))
   (list-system-processes)))

(ert-deftest tackle-stop-leaves-no-process ()
  (let* ((dir (tackle-test--workspace))
         ;; a wrapper that stays the parent, as npx does: its child must go too
         (tackle-program (list "sh" "-c" "node \"$0\" \"$@\"; exit $?" tackle-test--main))
         (tackle-serve-arguments nil))
    (unwind-protect
        (progn
          (let ((process (tackle-start dir)))
            (should (tackle-wait-until-connected tackle-test--timeout))
            (should (>= (length (tackle-test--pids-serving dir)) 2))
            (tackle-stop)
            (should-not (process-live-p process))
            (should-not (tackle-connected-p))
            (tackle-test--wait (lambda () (null (tackle-test--pids-serving dir))) "every server process to end")))
      (tackle-stop)
      (delete-directory dir t))))

(ert-deftest tackle-shows-control-characters-as-the-terminal-does ()
  ;; The same renderings as src/core/visible.ts's terminalSafe and oneLine.
  (should (equal (tackle--visible (concat "a" (string 27) "[31mb")) "a\\x1b[31mb"))
  (should (equal (tackle--visible "x\r\ny") "x\\r\ny"))
  (should (equal (tackle--visible (concat (string #x202e) "evil" (string #x2066))) "\\u202eevil\\u2066"))
  (should (equal (tackle--visible (concat "c1" (string #x9b) "z")) "c1\\x9bz"))
  (should (equal (tackle--visible (concat "zero" (string #x200b) "width" (string #xfeff))) "zero\\u200bwidth\\ufeff"))
  (should (equal (tackle--visible (concat "tag" (string #xe0041 #xe0042) "s")) "tag\\u{e0041}\\u{e0042}s"))
  (should (equal (tackle--visible (concat (string #x2764 #xfe0f) " kept, " (string #x1f600 #xfe01 #xfe02 #xe0101) " not"))
                 (concat (string #x2764 #xfe0f) " kept, " (string #x1f600) "\\ufe01\\ufe02\\u{e0101} not")))
  (should (equal (tackle--visible (concat "filler" (string #x3164 #xad))) "filler\\u3164\\xad"))
  (should (equal (tackle--visible "a\nb\tc" t) "a\\nb\\tc"))
  (should (equal (tackle--visible (concat "echo hi" (make-string 3000 ?\s) "; curl x | sh") t) "echo hi [3000 spaces] ; curl x | sh"))
  (should (equal (tackle--visible (concat "a" (make-string 7 ?\s) "b") t) (concat "a" (make-string 7 ?\s) "b")))
  (should (equal (tackle--one-line (concat "x" (make-string 30 ?z)) 10) "xzzzzzzzzz… (21 more characters)")))

(ert-deftest tackle-start-says-when-its-program-is-missing ()
  (let ((tackle-program '("no-such-tackle-program-here" "tackle"))
        (tackle--server-process nil))
    (let ((err (should-error (tackle-start temporary-file-directory) :type 'user-error)))
      (should (string-match-p "no-such-tackle-program-here.*no such program" (cadr err))))))

(provide 'tackle-test)
;;; tackle-test.el ends here

(ert-deftest tackle-undo-restores-what-the-agent-changed ()
  (tackle-test--with-server nil
    (let ((b (expand-file-name "b.txt" dir))
          (c (expand-file-name "c.txt" dir)))
      (tackle-checkpoint "start")
      (dolist (name '("b.txt" "c.txt"))
        (should (equal (alist-get 'status (tackle-call-sync "write_file" `((path . ,name) (content . "new\n"))))
                       "success")))
      (let ((result (tackle-undo)))
        (should (equal (alist-get 'path (car (alist-get 'files result))) "c.txt")))
      (should-not (file-exists-p c))
      (should (file-exists-p b))
      (tackle-undo-to-checkpoint "start")
      (should-not (file-exists-p b))
      (should-error (tackle-undo) :type 'tackle-error))))
